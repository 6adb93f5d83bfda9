// Helpers shared by the subcommands.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli.h"

namespace uf::cli {

Program load_program(const std::string& path) {
  try {
    Program p = read_program(path);
    verify(p);
    return p;
  } catch (const UserError& e) {
    throw UserError(located(path, e));
  }
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return;
  }
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path tmp = target.parent_path() / (".tmp." + target.filename().string() + "." + std::to_string(getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw UserError(path + ": cannot write (" + std::strerror(errno) + ")");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UserError(path + ": cannot write (" + ec.message() + ")");
  }
}

}  // namespace uf::cli
