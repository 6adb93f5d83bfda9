// What a culprit text says (see culprit.h): its KEY, the group it puts a bucket in, the switches it names.
#include <cstring>
#include <sstream>

#include "fuzz/oracle/culprit.h"

namespace uf {

std::vector<std::vector<std::string>> culprit_switch_sets(const std::string& culprit) {
  const std::string key = culprit_key(culprit);
  size_t at = std::string::npos;
  for (const char* word : {" switches ", " switch "})
    if (at == std::string::npos && (at = key.find(word)) != std::string::npos) at += std::strlen(word);
  if (at == std::string::npos) return {};
  std::vector<std::string> names;
  std::istringstream in(key.substr(at));
  bool alone = false;
  for (std::string w; in >> w;) {
    if (w == "or")
      alone = true;
    else
      names.push_back(w);
  }
  if (!alone) return {names};
  std::vector<std::vector<std::string>> sets;
  for (const std::string& n : names) sets.push_back({n});
  return sets;
}

std::string culprit_key(const std::string& culprit) {
  if (culprit.empty() || culprit.rfind("none", 0) == 0 || culprit.rfind("trigger ", 0) == 0) return "";
  return culprit.substr(0, culprit.find(" ("));
}

std::string group_key(const std::string& signature, const std::string& culprit) {
  if (is_optimizer_finding(signature) && culprit_key(culprit).empty())
    return group_key(without_opts_mark(signature), culprit) + std::string(kUnderOpts);
  const std::string klass = signature.substr(0, signature.find(' '));
  if (const std::string key = culprit_key(culprit); !key.empty()) return key;  // one cause, however it shows
  if (klass != "mismatch") return signature;
  const size_t op_end = signature.find(' ', klass.size() + 1);
  return signature.substr(0, op_end);
}

}  // namespace uf
