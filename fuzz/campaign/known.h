// Known findings (`fuzz --known DIR`, docs/format.md "Known findings"): a campaign given a target's tracked
// corpus spends no reduction or culprit search on a bug it already holds. Each open reproducer there
// (`meta status = open`) whose culprit names switches of this target is a known root cause. A new bucket
// is that bug found again when, on its own data, it passes with each of the known culprit's switch sets
// off (`A or B`: A alone, and B alone; `A B`: both): the same fingerprint, not merely a rule that a
// different defect also needs. A culprit of one switch set is a weaker fingerprint when its switches
// take effect in most programs (tinygrad's `_substitute`, uop/ops.py:1754, fires in every kernel, and off
// it undoes every optimization step, so it "explains" any optimizer bug): such a set explains a bucket
// only when it shows as the known one does (its signature without dtypes, group_key), unless it is
// narrow, every switch of it taking effect in at most kNarrowShare of this worker's programs (tinygrad's
// no-op-store rule, 8 % of x86 programs, shows as STORE and LOAD mismatches of any dtype). Two switch sets
// that each alone off make it pass are two fingerprints (tinygrad's constant folding without wrap,
// `uop/symbolic.py:147 or :36`, explained a FLOORMOD i64 by a negative constant under long emulation: the
// negated divisor folded unwrapped). It is then counted under the known group (its culprit), kept as found
// with `meta known`, and neither reduced nor searched. Whatever the known culprits do not explain is new,
// whatever its signature.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "codegen/compiled_path.h"
#include "core/program.h"
#include "fuzz/campaign/target_coverage.h"

namespace uf {

struct KnownFinding {
  std::string file;     // relative to the known directory
  std::string culprit;  // its culprit's key (culprit_key): the group it stands for
  std::string signature;  // `meta signature`
  std::vector<std::vector<std::string>> switch_sets;  // culprit_switch_sets, each a switch of this target
};

// The known findings of DIR (every `.uop` below it); those whose culprit names a switch `switches` lacks
// are left out (another target's). UserError for a file that does not parse, with its location.
std::vector<KnownFinding> load_known(const std::string& dir, const std::vector<std::string>& switches);

struct KnownVerdict {
  std::optional<KnownFinding> known;  // what explains it; nullopt: new
  int checks = 0;                      // renders run to decide
};

// Whether a known finding explains `p`, which fails as `signature` under `cfg` (a plug-in server with
// switches). First one check with every known switch off: when it still fails as `signature`, no known
// cause explains it (it may fail otherwise: with that many rules off a kernel need not lower at all).
// Whether a bucket failing as `signature` may be `k`: always for a culprit of several switch sets, else
// with k's signature (without dtypes), or when its switches are narrow (their share of `seen`'s programs,
// once it has kMinPrograms).
inline constexpr double kNarrowShare = 0.25;
inline constexpr int64_t kMinPrograms = 20;
bool may_be(const KnownFinding& k, const std::string& signature, const TargetCoverage& seen);

// The known finding whose culprit names the same switch sets as `culprit` (of whichever backend of the
// target: the rule is the cause) and that a bucket failing as `signature` may be, or nullptr: a bucket the
// check left new, once reduced and searched.
const KnownFinding* known_by_culprit(const std::vector<KnownFinding>& known, const std::string& culprit,
                                     const std::string& signature, const TargetCoverage& seen);

KnownVerdict explain_known(const Program& p, const std::string& signature, const std::vector<KnownFinding>& known,
                           const CompiledPathConfig& cfg, const TargetCoverage& seen);

}  // namespace uf
