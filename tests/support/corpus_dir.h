// What a corpus directory holds, for the fault-safety tests: whole reproducers, temporary files, and
// problems (a visible file that is not a reproducer that reads, verifies and names its bucket).
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace uf::testing {

struct CorpusState {
  std::map<std::string, std::string> files;         // name -> content
  std::map<std::string, std::string> signature_of;  // file -> signature
  std::vector<std::string> temporaries;
  std::vector<std::string> problems;
};

CorpusState inspect_corpus(const std::filesystem::path& dir);

}  // namespace uf::testing
