// Runs the uopfuzz binary as a user would (through the shell), capturing its output and exit code.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace uf::testing {

struct Ran {
  int code;         // exit code, or 128 + signal
  std::string out;  // stdout and stderr together
};

// `env` is prepended to the command line (e.g. "UOPFUZZ_CACHE_DIR=/tmp/x ").
inline Ran run_uopfuzz(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + UOPFUZZ_BINARY + std::string(" ") + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

}  // namespace uf::testing
