// The standalone reproducer built and run (see standalone_run.h).
#include "fuzz/oracle/standalone_run.h"

#include <cerrno>
#include <cstring>

#include "codegen/languages.h"
#include "codegen/runtime/files.h"
#include "codegen/runtime/process.h"
#include "core/error.h"
#include "interp/interp.h"

namespace uf {

StandaloneC standalone_for(const Program& p, const CompiledPathConfig& cfg) {
  RefResult ref = interpret(p);
  if (ref.undefined)
    throw UserError("the reference is UNDEFINED at " + p.node_name(ref.undefined->node) + " (" + ref.undefined->reason +
                    "): nothing to reproduce");
  if (const char* why = language_row(cfg.renderer_description.language).no_standalone; why && !cfg.renderer_cmd.empty())
    throw UserError("renderer '" + cfg.renderer_cmd + "' " + why);
  StandaloneC s;
  try {
    s.kernel_source = render_source(p, s.fn_name, cfg);
  } catch (const UserError& e) {
    throw UserError(std::string("the target does not render it, so there is no C (a render-error):\n") + e.what());
  }
  s.expected = std::move(ref.buffers);
  return s;
}

StandaloneOutcome build_and_run(const std::string& source, const std::string& cc, const std::string& cflags,
                                const std::vector<std::string>& extra_flags, double timeout_s) {
  const char* tmp = std::getenv("TMPDIR");
  std::optional<TempDir> dir = TempDir::create(std::string(tmp && *tmp ? tmp : "/tmp") + "/uopfuzz-repro-XXXXXX");
  if (!dir) throw UserError(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  const std::string c_file = dir->path() + "/repro.c", exe = dir->path() + "/repro";
  if (const FileError e = write_file(c_file, source)) throw UserError(e.message());
  std::vector<std::string> argv{cc};
  for (std::string& f : split_command(cflags)) argv.push_back(std::move(f));
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  argv.insert(argv.end(), {"-fPIC", "-o", exe, c_file, "-lm"});
  ProcessOptions po;
  po.timeout_s = timeout_s;
  po.max_stderr = size_t{16} << 20;  // -opt-bisect-limit prints a line per pass
  const ProcessResult built = run_process(argv, po);
  if (!built.started) throw UserError("cannot run compiler '" + cc + "': " + built.message);
  StandaloneOutcome out;
  out.compiler_stderr = built.err;
  out.compiled = built.ok();
  out.timed_out = built.timed_out;
  if (!out.compiled) return out;
  const ProcessResult ran = run_process({exe}, po);
  out.exit_code = ran.exit_code;
  out.signal = ran.signal;
  out.timed_out = ran.timed_out;
  out.output = ran.out;
  return out;
}

}  // namespace uf
