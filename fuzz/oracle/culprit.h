// The culprit of a finding (`uopfuzz triage`, `meta culprit`, and each new bucket of a campaign): what
// in the target, switched off, makes the finding pass. The searches (kCulpritSearches in culprit.cpp,
// one row each) are tried in order until one names something:
//   switches  a protocol-2 plug-in's own switches (handshake `switches`; tinygrad: its rewrite rules):
//             the program rendered with a set of them off: of those its render used, each that alone
//             off passes (or ddmin's 1-minimal set) when all off pass, else each one alone, else a pair
//             of one and the switch that takes effect in its place;
//   clang     `-mllvm -opt-bisect-limit=N` bisected to the first pass whose running makes the difference;
//             when it fails with every optional pass skipped, which backend flag changes it;
//   gcc       the `-f` flags its level enables (`-Q --help=optimizers`): each whose `-fno-` alone makes
//             it pass, else ddmin's smallest set.
// Compilers are searched on the standalone reproducer (standalone_run.h), rebuilt and run once per
// configuration, so the culprit is one a compiler developer sees in what `uopfuzz export` gives them.
//
// A switch that makes the finding pass is re-checked, still off, on the other data sets the caller
// gives (CulpritOptions::other_data): when the program still fails on one of them the switch only
// triggers the bug on this data, and the text is `trigger SWITCH (...)`, which names no culprit (no KEY:
// it groups as `none` does).
//
// A culprit text is `KEY (details)`: `gcc -ftree-slp-vectorize (passes with -fno-tree-slp-vectorize; 14
// checks)`, `clang pass SLPVectorizerPass (57 of 124, on kernel; ...)`, `tinygrad switch
// uop/symbolic.py:123 (...)`; or `none (why)`. KEY is what groups compare.
#pragma once
#include <chrono>
#include <optional>
#include <string>

#include "codegen/compiled_path.h"
#include "core/program.h"
#include "fuzz/oracle/oracle.h"

namespace uf {

struct Culprit {
  std::string text;  // the `meta culprit` value
  int checks = 0;    // configurations built and run
  double seconds = 0;
};

// How many other data sets callers give a search to re-check a switch culprit on: one render and compile
// more, and that many kernel runs.
inline constexpr int kCulpritRecheckDataSets = 8;

struct CulpritOptions {
  double time_limit_s = 120;
  std::optional<std::chrono::steady_clock::time_point> stop_at;  // a campaign's budget, whichever is first
  // Data sets other than the finding's own (gen's input_data): a switch culprit is re-checked on them.
  std::vector<DataSet> other_data;
};

// `signature` is the failure's (its class decides what passing means: a compile-error is gone once it
// compiles, any other failure once every buffer agrees). Never throws for what the target does;
// UserError for a setup problem (a compiler that cannot run).
Culprit find_culprit(const Program& p, const std::string& signature, const CompiledPathConfig& cfg, const CulpritOptions& o = {});

// Whether a check of a finding failing as `signature` shows it gone: a compile-error once it compiles (or
// at least renders), any other failure once every buffer agrees.
bool finding_gone(const std::string& signature, const Finding& f);

// The switch sets a culprit text names (`TARGET switch A`, `TARGET switches A or B`: {A}, {B}, each alone
// off makes it pass; `TARGET switches A B`: one set {A, B}); none for a culprit that names no switch.
std::vector<std::vector<std::string>> culprit_switch_sets(const std::string& culprit);

// The part of a culprit text that names it (before ` (`), "" for `none ...`, `trigger ...` or an empty text.
std::string culprit_key(const std::string& culprit);
// The root cause a bucket belongs to: its culprit's KEY when it names one (a crash and a mismatch of the
// same cause are one group), else the signature without its dtypes (`mismatch MUL` for `mismatch MUL
// i32`), the class alone for the other classes.
std::string group_key(const std::string& signature, const std::string& culprit);

}  // namespace uf
