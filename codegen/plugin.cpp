// Running a renderer plug-in on one program, or on a batch in one process (see plugin.h).
#include "codegen/plugin.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "codegen/runtime/fd.h"
#include "codegen/runtime/files.h"
#include "codegen/runtime/process.h"
#include "core/error.h"
#include "core/text.h"

namespace uf {

namespace {

std::string temp_dir() {
  const char* tmpdir = std::getenv("TMPDIR");
  return std::string(tmpdir && *tmpdir ? tmpdir : "/tmp");
}

// A new file of ours for the plug-in to read; UserError naming it when it cannot be written whole.
void write_new(const std::string& path, const std::string& text) {
  if (const FileError e = write_file(path, text, {.mode = 0600, .exclusive = true})) throw UserError(e.message());
}

PluginResult failure(const std::string& cmd, const ProcessResult& r, const std::string& what = "") {
  PluginResult res;
  res.message = "renderer '" + cmd + "'" + what + " " + r.describe();
  if (r.timed_out) res.bucket = std::string(kTimeoutBucket);
  if (!r.err.empty()) res.message += ":\n" + r.err;
  return res;
}

// One run of the batch protocol in a fresh directory; `process_failed` tells the caller to retry alone.
std::vector<PluginResult> run_batch(const std::vector<const Program*>& programs, const std::vector<std::string>& names,
                                    const std::string& cmd, double timeout_s, bool& process_failed) {
  std::vector<std::string> argv = split_command(cmd);
  if (argv.empty()) throw UserError("--renderer-batch is empty");
  const std::string pattern = temp_dir() + "/uopfuzz-render-XXXXXX";
  const std::optional<TempDir> temp = TempDir::create(pattern);
  if (!temp) throw UserError("cannot create a temporary directory " + pattern + ": " + strerror(errno));
  const std::string& dir = temp->path();
  std::string list;
  for (const std::string& name : names)  // the list's framing is blank-separated words, one line each
    if (name.empty() || name.find_first_of(" \t\n\r") != std::string::npos)
      throw UserError("function name '" + name + "' cannot be passed to a batch renderer (empty or with blanks)");
  for (size_t k = 0; k < programs.size(); ++k) {
    const std::string K = std::to_string(k);
    write_new(dir + "/" + K + ".uop", print_program(*programs[k]));
    list += K + ".uop " + names[k] + " " + K + ".c " + K + ".err\n";
  }
  write_new(dir + "/batch.list", list);
  argv.push_back(dir + "/batch.list");
  ProcessOptions po;
  po.timeout_s = timeout_s;
  po.max_stdout = kMaxPluginOutput;
  const ProcessResult r = run_process(argv, po);
  std::vector<PluginResult> out(programs.size());
  process_failed = !r.ok();
  if (process_failed) {
    for (PluginResult& o : out) o = failure(cmd, r, " (batch)");
    return out;
  }
  for (size_t k = 0; k < programs.size(); ++k) {
    const std::string base = dir + "/" + std::to_string(k);
    PluginResult& o = out[k];
    if (std::optional<std::string> err = read_file(base + ".err", kMaxPluginOutput)) {
      o.message = "renderer '" + cmd + "' (batch) could not render " + names[k] + ":\n" + *err;
    } else if (std::optional<std::string> c = read_file(base + ".c", kMaxPluginOutput)) {
      if (c->size() > kMaxPluginOutput) {
        o.message =
            "renderer '" + cmd + "' (batch) wrote more than " + std::to_string(kMaxPluginOutput) + " bytes for " + names[k];
      } else {
        o.ok = true;
        o.source = std::move(*c);
      }
    } else {
      o.message = "renderer '" + cmd + "' (batch) wrote neither " + std::to_string(k) + ".c nor " + std::to_string(k) +
                  ".err for " + names[k];
      if (!r.err.empty()) o.message += ":\n" + r.err;
    }
  }
  return out;
}

}  // namespace

PluginResult render_with_plugin(const Program& p, const std::string& fn_name, const std::string& cmd, double timeout_s) {
  std::vector<std::string> argv = split_command(cmd);
  if (argv.empty()) throw UserError("--renderer-cmd is empty");
  std::string path = temp_dir() + "/uopfuzz-render-XXXXXX.uop";
  UniqueFd fd(::mkstemps(path.data(), 4));
  if (!fd) throw UserError("cannot create a temporary program file " + path + ": " + strerror(errno));
  const RemovedOnExit program_file(path);
  if (!write_all(fd.get(), print_program(p)) || fd.close() != 0) throw UserError("cannot write " + path + ": " + strerror(errno));

  argv.push_back(path);
  argv.push_back(fn_name);
  ProcessOptions po;
  po.timeout_s = timeout_s;
  po.max_stdout = kMaxPluginOutput;
  const ProcessResult r = run_process(argv, po);
  if (!r.ok()) return failure(cmd, r);
  PluginResult res;
  res.ok = true;
  res.source = r.out;
  return res;
}

std::vector<PluginResult> render_batch_with_plugin(const std::vector<const Program*>& programs,
                                                   const std::vector<std::string>& names, const std::string& cmd,
                                                   double timeout_s) {
  if (programs.empty()) return {};
  bool process_failed = false;
  std::vector<PluginResult> out = run_batch(programs, names, cmd, timeout_s, process_failed);
  if (!process_failed || programs.size() == 1) return out;
  for (size_t k = 0; k < programs.size(); ++k)  // who killed it: each alone
    out[k] = std::move(run_batch({programs[k]}, {names[k]}, cmd, timeout_s, process_failed).at(0));
  return out;
}

}  // namespace uf
