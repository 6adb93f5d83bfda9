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

bool may_be(const KnownFinding& k, const std::string& signature, const TargetCoverage& seen) {
  if (k.switch_sets.size() > 1 || group_key(signature, "") == group_key(k.signature, "")) return true;
  if (seen.programs < kMinPrograms) return false;
  return std::all_of(k.switch_sets[0].begin(), k.switch_sets[0].end(), [&](const std::string& s) {
    const auto it = seen.features.find(s);
    const int64_t hits = it == seen.features.end() ? 0 : it->second.programs;
    return static_cast<double>(hits) <= kNarrowShare * static_cast<double>(seen.programs);
  });
}

const KnownFinding* known_by_culprit(const std::vector<KnownFinding>& known, const std::string& culprit,
                                     const std::string& signature, const TargetCoverage& seen) {
  auto sorted_sets = [](std::vector<std::vector<std::string>> sets) {
    for (auto& set : sets) std::sort(set.begin(), set.end());
    std::sort(sets.begin(), sets.end());
    return sets;
  };
  const std::vector<std::vector<std::string>> sets = sorted_sets(culprit_switch_sets(culprit));
  for (const KnownFinding& k : known)
    if (!sets.empty() && sorted_sets(k.switch_sets) == sets && may_be(k, signature, seen)) return &k;
  return nullptr;
}

KnownVerdict explain_known(const Program& p, const std::string& signature, const std::vector<KnownFinding>& known,
                           const CompiledPathConfig& cfg, const TargetCoverage& seen) {
  KnownVerdict v;
  std::set<std::string> every;
  for (const KnownFinding& k : known)
    if (may_be(k, signature, seen))
      for (const auto& set : k.switch_sets) every.insert(set.begin(), set.end());
  if (every.empty()) return v;
  // With so many switches off the kernel may not lower at all: only the same failure says none explains it.
  const Finding all_off = check_with_off(p, {every.begin(), every.end()}, cfg, v.checks);
  if (all_off.defined() && all_off.observation.signature == signature) return v;
  for (const KnownFinding& k : known) {
    if (!may_be(k, signature, seen)) continue;
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
