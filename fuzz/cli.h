// The uopfuzz command line: each cli_*.cpp registers its subcommands; main.cpp runs the chosen one.
//
// Exit codes (FORMAT.md): 0 success, 1 a failure of the compiled path / something new found,
// 2 usage or input error (`FILE:LINE: message` on stderr), 3 UNDEFINED under the reference,
// 70 an internal error of uopfuzz itself (a bug: please report the file:line it prints).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/text.h"

namespace uf::cli {

enum Exit : int { kOk = 0, kFailure = 1, kUsage = 2, kUndefined = 3, kInternal = 70 };

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

std::vector<Command> file_commands(CLI::App& app);      // fmt, interp
std::vector<Command> compiled_commands(CLI::App& app);  // render, run
std::vector<Command> fuzz_commands(CLI::App& app);      // gen, reduce, fuzz

// Reads and verifies a program file; errors carry FILE:LINE.
Program load_program(const std::string& path);
// Writes `text` to `path` atomically (temporary file in the same directory, then rename), or to
// stdout when path is empty or "-". Throws UserError when the file cannot be written.
void write_output(const std::string& path, const std::string& text);

}  // namespace uf::cli
