// What the compiled path (compiled_path.h) is given, CompiledPathConfig, and what it gives per kernel,
// KernelOutcome: apart from its entry points, so that its parts (batch_compiler) include these and not
// the header of the whole path.
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/plugin_describe.h"
#include "codegen/render/render.h"
#include "codegen/runtime/compiler.h"
#include "core/program.h"

namespace uf {

struct CompiledPathConfig {
  std::string cc = kDefaultCC;
  std::string cflags = kDefaultCFlags;
  std::string renderer_cmd;  // empty: the built-in renderer (render.h)
  // How renderer_cmd is spoken to: one process per program or per batch (plugin.h), or one long-lived
  // process per uopfuzz process (plugin_server.h); its handshake, when it gave one (protocol 2).
  RendererProtocol renderer_protocol = RendererProtocol::program;
  PluginDescription renderer_description;
  // Switches of the plug-in's handshake to switch off in every server request (a culprit search).
  std::vector<std::string> switches_off;
  RenderOptions render;          // the built-in renderer's --f16/--bf16 modes (soft by default)
  double timeout_s = 10;         // one kernel run
  double render_timeout_s = 60;  // one plug-in run (or one server request)
  // When the campaign's --time budget (or a search's deadline) ends: no plug-in run or request lasts past
  // it, and no compiler call more than 2 s past it.
  std::optional<std::chrono::steady_clock::time_point> render_stop_at;
  double compile_timeout_s = 300;  // one compiler call
  // The C compiler's optimization remarks as each kernel's features (fuzz --remarks; remarks.h).
  bool remarks = false;

  // A server renders each program on request, with no process to start per batch (campaign batch sizes).
  bool renders_per_request() const { return !renderer_cmd.empty() && renderer_protocol == RendererProtocol::server; }
};

enum class KernelStatus { ok, crash, timeout, compile_error, render_error };  // compiled_path.h says each

struct KernelOutcome {
  KernelStatus status = KernelStatus::ok;
  int signal = 0;
  std::string message;
  // A render_error's name given by the plug-in (protocol 2's `bucket`: one per cause), "" when none.
  std::string bucket;
  std::map<int64_t, Values> buffers;  // when ok: every BUFFER by slot
  // What of the target the kernel's render reached: a protocol-2 plug-in's `used` (tinygrad: the rewrite
  // rules that fired), or with `remarks` the C compiler's remarks on the kernel's lines. The campaign's
  // target coverage and its guidance count these.
  std::vector<std::string> features;
  double render_seconds = 0;  // a plug-in's render of it (0 for the built-in renderer): what guidance weighs seeds by
  // A plug-in render that failed once render_stop_at had passed (cut short, or never started), or a
  // compile the budget cut: an error that says nothing about the target, so not a finding (the caller
  // drops the program).
  bool out_of_time = false;
};

}  // namespace uf
