#include <CLI/CLI.hpp>
#include <iostream>
#include "core/text.h"
int main(int argc, char** argv) {
  CLI::App app{"uopfuzz"};
  std::string file;
  auto* fmt = app.add_subcommand("fmt");
  fmt->add_option("FILE", file)->required();
  CLI11_PARSE(app, argc, argv);
  try {
    uf::Program p = uf::read_program(file);
    uf::verify(p);
    std::cout << uf::print_program(p);
  } catch (const uf::UserError& e) { std::cerr << uf::located(file, e) << "\n"; return 2; }
}
