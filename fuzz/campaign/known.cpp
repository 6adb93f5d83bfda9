// Known findings (see known.h).
#include "fuzz/campaign/known.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "core/text.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/oracle/oracle.h"

namespace uf {

std::vector<KnownFinding> load_known(const std::string& dir, const std::vector<std::string>& switches) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UserError(dir + ": --known: not a directory");
  std::vector<std::string> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().extension() == ".uop") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  const std::set<std::string> ours(switches.begin(), switches.end());
  std::vector<KnownFinding> out;
  for (const std::string& path : paths) {
    const Program p = read_program(path);
    const std::string* status = p.meta_value("status");
    const std::string* culprit = p.meta_value("culprit");
    if (!status || *status != "open" || !culprit) continue;
    const std::string* signature = p.meta_value("signature");
    KnownFinding k{fs::relative(path, dir).string(), culprit_key(*culprit), signature ? *signature : "",
                   culprit_switch_sets(*culprit)};
    const bool all_ours = std::all_of(k.switch_sets.begin(), k.switch_sets.end(), [&](const std::vector<std::string>& set) {
      return std::all_of(set.begin(), set.end(), [&](const std::string& s) { return ours.count(s) > 0; });
    });
    if (!k.switch_sets.empty() && all_ours) out.push_back(std::move(k));
  }
  return out;
}

namespace {

Finding check_with_off(const Program& p, const std::vector<std::string>& off, const CompiledPathConfig& cfg, int& checks) {
  CompiledPathConfig c = cfg;
  c.switches_off = off;
  ++checks;
  return std::move(check({&p}, c, /*probe=*/false).at(0));
}

}  // namespace

bool may_be(const KnownFinding& k, const std::string& signature) {
  return k.switch_sets.size() > 1 || group_key(signature, "") == group_key(k.signature, "");
}

const KnownFinding* known_by_culprit(const std::vector<KnownFinding>& known, const std::string& culprit,
                                     const std::string& signature) {
  const std::string key = culprit_key(culprit);
  for (const KnownFinding& k : known)
    if (!key.empty() && k.culprit == key && may_be(k, signature)) return &k;
  return nullptr;
}

KnownVerdict explain_known(const Program& p, const std::string& signature, const std::vector<KnownFinding>& known,
                           const CompiledPathConfig& cfg) {
  KnownVerdict v;
  std::set<std::string> every;
  for (const KnownFinding& k : known)
    if (may_be(k, signature))
      for (const auto& set : k.switch_sets) every.insert(set.begin(), set.end());
  if (every.empty()) return v;
  // With so many switches off the kernel may not lower at all: only the same failure says none explains it.
  const Finding all_off = check_with_off(p, {every.begin(), every.end()}, cfg, v.checks);
  if (all_off.defined() && all_off.observation.signature == signature) return v;
  for (const KnownFinding& k : known) {
    if (!may_be(k, signature)) continue;
    const bool explains = std::all_of(k.switch_sets.begin(), k.switch_sets.end(), [&](const std::vector<std::string>& set) {
      return finding_gone(signature, check_with_off(p, set, cfg, v.checks));
    });
    if (explains) {
      v.known = k;
      return v;
    }
  }
  return v;
}

}  // namespace uf
