// Running a renderer plug-in on one program (see plugin.h).
#include "codegen/plugin.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "codegen/runtime/process.h"
#include "core/error.h"
#include "core/text.h"

namespace uf {

PluginResult render_with_plugin(const Program& p, const std::string& fn_name, const std::string& cmd,
                                double timeout_s) {
  std::vector<std::string> argv = split_command(cmd);
  if (argv.empty()) throw UserError("--renderer-cmd is empty");
  const char* tmpdir = std::getenv("TMPDIR");
  std::string path = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/uopfuzz-render-XXXXXX.uop";
  const int fd = ::mkstemps(path.data(), 4);
  if (fd < 0) throw UserError("cannot create a temporary program file " + path + ": " + strerror(errno));
  const std::string text = print_program(p);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ::close(fd);
      ::unlink(path.c_str());
      throw UserError("cannot write " + path + ": " + strerror(errno));
    }
    done += static_cast<size_t>(w);
  }
  ::close(fd);

  argv.push_back(path);
  argv.push_back(fn_name);
  ProcessOptions po;
  po.timeout_s = timeout_s;
  po.max_stdout = kMaxPluginOutput;
  const ProcessResult r = run_process(argv, po);
  ::unlink(path.c_str());

  PluginResult res;
  if (r.ok()) {
    res.ok = true;
    res.source = r.out;
    return res;
  }
  res.message = "renderer '" + cmd + "' " + r.describe();
  if (!r.err.empty()) res.message += ":\n" + r.err;
  return res;
}

}  // namespace uf
