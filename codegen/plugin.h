// Renderer plug-ins: docs/format.md's `--renderer-cmd CMD` protocol.
//
// The program is written in canonical form (core's print_program) to a private temporary `.uop` file,
// then `CMD PROGRAM_FILE FUNCTION_NAME` runs with CMD split like a shell command line but with no shell
// (split_command). Its stdout is the C translation unit, which must define
// `void FUNCTION_NAME(T0* data0, ...)` (one pointer per BUFFER, ascending slot, Tk the dtype's C type
// of core/dtypes.def: f16 as `_Float16*` or its bits, bf16 `uint16_t*`, the fp8s `uint8_t*`)
// and keep every other symbol static. The run is bounded: kMaxPluginOutput bytes of stdout and a
// timeout, after which the plug-in (and anything it started) is killed; either, or a non-zero exit,
// is a render failure carrying the plug-in's stderr.
//
// The batch form (`--renderer-batch CMD`, render_batch_with_plugin) renders many programs in one
// process: a private directory holds K.uop for each program and batch.list, whose line K reads
// `K.uop FUNCTION_NAME K.c K.err` (names relative to the list's directory); `CMD... LIST_FILE` writes
// K.c, or K.err with a message for a program it cannot render. A plug-in start costs tens of
// milliseconds (Python), and a reduction renders hundreds of candidates, so this is the fast form.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/program.h"

namespace uf {

inline constexpr size_t kMaxPluginOutput = size_t{32} << 20;

// The bucket of a render that outlasted --render-timeout (the plug-in never named one): one cause, a
// render too slow, kept apart from the plug-in's own buckets and from its other failures.
inline constexpr std::string_view kTimeoutBucket = "timeout";

struct PluginResult {
  bool ok = false;
  std::string source;             // when ok: the translation unit
  std::string message;            // when not ok: what happened, with the plug-in's stderr
  std::string bucket;             // when not ok: a server's name for the failure, the same for one cause ("" none)
  std::vector<std::string> used;  // a server's reply: the switches that took effect (handshake "switches")
  std::vector<std::string> features;  // ... and what else it reached (plugin_messages.h, read_used)
  double seconds = 0;             // how long its render took (in a batch process: the process's time shared out)
};

// Throws UserError only for an unusable command line (empty, unbalanced quotes) or when no
// temporary file can be written.
PluginResult render_with_plugin(const Program& p, const std::string& fn_name, const std::string& cmd, double timeout_s);

// One plug-in process for the whole batch (names[i] is programs[i]'s function). A program with K.err,
// or with neither file, is that program's render failure alone. When the process itself fails (exit,
// signal, timeout) and the batch has several programs, each is rendered again alone, so one program
// that kills the plug-in takes only itself down. Throws UserError as render_with_plugin does.
std::vector<PluginResult> render_batch_with_plugin(const std::vector<const Program*>& programs,
                                                   const std::vector<std::string>& names, const std::string& cmd,
                                                   double timeout_s);

}  // namespace uf
