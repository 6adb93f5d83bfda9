#include "tests/support/corpus_dir.h"

#include <set>

#include "core/text.h"
#include "tests/support/files.h"

namespace uf::testing {

CorpusState inspect_corpus(const std::filesystem::path& dir) {
  CorpusState s;
  std::set<std::string> signatures;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.front() == '.') {
      s.temporaries.push_back(name);
      continue;
    }
    if (!e.is_regular_file() || e.path().extension() != ".uop") {
      s.problems.push_back(name + ": not a .uop file");
      continue;
    }
    const std::string text = read_text(e.path());
    try {
      Program p = parse_program(text, name);
      verify(p);
      const std::string* sig = p.meta_value("signature");
      if (!sig) {
        s.problems.push_back(name + ": no meta signature");
      } else {
        if (!signatures.insert(*sig).second) s.problems.push_back(name + ": bucket `" + *sig + "` saved twice");
        s.signature_of[name] = *sig;
      }
    } catch (const UserError& err) { s.problems.push_back(name + ": " + err.what() + " (partial or corrupt)"); }
    s.files[name] = text;
  }
  return s;
}

}  // namespace uf::testing
