// What an executing target (handshake language "outputs") replies to a "run" server request: apart from
// the server (plugin_server.h), so that the checks of its messages (plugin_messages.h) need not include it.
#pragma once
#include <string>
#include <vector>

#include "codegen/runtime/native.h"

namespace uf {

// One data set's outcome from an executing target.
struct PluginRunOutcome {
  enum class Status { ok, crash, timeout, compile_error } status = Status::ok;
  std::string message;
  int signal = 0;                     // crash: the signal that ended the run, when the target says
  std::vector<NativeBuffer> buffers;  // when ok: the final contents, in p.buffers order
};
// A run request's result: ok with one outcome per data set, or (not ok) the program's render failure.
struct PluginRunResult {
  bool ok = false;
  std::string message;
  std::string bucket;  // when not ok: the plug-in's name for the failure ("" none), as PluginResult's
  std::vector<PluginRunOutcome> outcomes;
  std::vector<std::string> used;
  std::vector<std::string> features;  // as PluginResult's
};

}  // namespace uf
