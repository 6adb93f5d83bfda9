// The culprit search (see culprit.h).
#include "fuzz/oracle/culprit.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/plugin_server.h"
#include "codegen/runtime/process.h"
#include "fuzz/oracle/oracle.h"
#include "fuzz/oracle/standalone_run.h"

namespace uf {

namespace {

using Clock = std::chrono::steady_clock;
using Names = std::vector<std::string>;

struct OutOfTime {};

// What every search shares: the program, its target, the budget, the configurations run so far.
struct Search {
  const Program& p;
  const CompiledPathConfig& cfg;
  Clock::time_point deadline;
  // A compile-error is gone once it compiles (its flags may target a CPU this machine lacks, so it is
  // not run); any other failure once every buffer agrees.
  bool compile_error = false;
  int checks = 0;
  std::optional<std::string> standalone;  // the reproducer's C, built on first use
  const std::vector<DataSet>& other_data;

  void tick() {
    if (Clock::now() >= deadline) throw OutOfTime{};
    ++checks;
  }
};

std::string joined(const Names& names, const std::string& prefix = "") {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + prefix + n;
  return out;
}

// Zeller's ddmin, looking for a 1-minimal subset of `set` for which `passes` holds (it holds for `set`).
Names ddmin(Names set, const std::function<bool(const Names&)>& passes) {
  size_t n = 2;
  while (set.size() >= 2) {
    std::vector<Names> parts(n);
    for (size_t i = 0; i < set.size(); ++i) parts[i * n / set.size()].push_back(set[i]);
    bool reduced = false;
    for (const Names& part : parts)
      if (!part.empty() && passes(part)) {
        set = part, n = 2, reduced = true;
        break;
      }
    for (size_t k = 0; !reduced && n > 2 && k < parts.size(); ++k) {
      Names rest;
      for (const std::string& s : set)
        if (std::find(parts[k].begin(), parts[k].end(), s) == parts[k].end()) rest.push_back(s);
      if (passes(rest)) set = std::move(rest), n = std::max<size_t>(n - 1, 2), reduced = true;
    }
    if (!reduced) {
      if (n >= set.size()) break;
      n = std::min(2 * n, set.size());
    }
  }
  return set;
}

// The names of `set` that alone off make it pass, by splitting: a part whose names all off fail holds
// none (what one name off does, more off rarely undo), so k of n cost about 2k log2(n) checks, not n.
// `passing`: passes(set) is known to hold.
void passing_alone(const Names& set, const std::function<bool(const Names&)>& passes, bool passing, Names& out) {
  if (set.empty() || (!passing && !passes(set))) return;
  if (set.size() == 1) {
    out.push_back(set[0]);
    return;
  }
  const auto mid = set.begin() + static_cast<std::ptrdiff_t>(set.size() / 2);
  passing_alone(Names(set.begin(), mid), passes, false, out);
  passing_alone(Names(mid, set.end()), passes, false, out);
}

// What switched off makes the failure pass. When all of `names` off pass: every name that alone does it,
// else (a combination is needed) ddmin's 1-minimal set. When all off fail and `scan` (a target that
// cannot work with everything off), each name alone. Nothing when neither works.
struct Explained {
  Names names;
  bool alone = false;
};
Explained explain(const Names& names, const std::function<bool(const Names&)>& passes, bool scan) {
  Explained out{{}, true};
  if (!passes(names)) {
    if (scan)
      for (const std::string& n : names)
        if (passes({n})) out.names.push_back(n);
    return out;
  }
  passing_alone(names, passes, /*passing=*/true, out.names);
  if (out.names.empty()) out = {ddmin(names, passes), false};
  return out;
}

// `A or B or C (each alone ...)` / `A B (together ...)` for a culprit text.
std::string explained_text(const Explained& e) {
  std::string out;
  for (const std::string& n : e.names) out += (out.empty() ? "" : e.alone ? " or " : " ") + n;
  return out;
}

// ---- a plug-in's switches -----------------------------------------------------------------------------

bool has_switches(const CompiledPathConfig& cfg) {
  return !cfg.renderer_description.switches.empty() && cfg.renderer_protocol == RendererProtocol::server;
}
bool has_switches_or_opts(const CompiledPathConfig& cfg) { return has_switches(cfg) || !cfg.renderer_description.opts.empty(); }

// The known switches that take effect on the program's render with `off` off (the reply's `used`), sorted.
// A render error's reply may name those that took effect before it failed (the only ones whose switching
// off can change it). With nothing off and no `used` to go by, all the handshake lists; with some off and
// a failing render, none.
Names used_switches(Search& s, const Names& off) {
  const Names& known = s.cfg.renderer_description.switches;
  s.tick();
  const PluginResult r = plugin_server(s.cfg.renderer_cmd).render(s.p, "kernel", s.deadline, off);
  if (!r.ok && !off.empty()) return {};
  Names names;
  for (const std::string& u : !r.used.empty() ? r.used : known)
    if (std::find(known.begin(), known.end(), u) != known.end() && std::find(off.begin(), off.end(), u) == off.end())
      names.push_back(u);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// A pair {a, b}: with a off, b newly takes effect and does the same rewrite (tinygrad's NaN != NaN is
// folded by two rules); empty when no such pair makes it pass.
Names stand_in_pair(Search& s, const Names& names, const std::function<bool(const Names&)>& passes) {
  for (const std::string& a : names)
    for (const std::string& b : used_switches(s, {a}))
      if (!std::binary_search(names.begin(), names.end(), b) && passes({a, b})) return {a, b};
  return {};
}

// With `off` off, the first other data set on which the program still fails: "data set K of N still fails
// (SIGNATURE)", or "" when it passes on all of them (or there are none).
std::string still_fails(Search& s, const Names& off) {
  if (s.other_data.empty()) return "";
  s.tick();
  CompiledPathConfig c = s.cfg;
  c.switches_off = off;
  const Finding f = std::move(check({&s.p}, {s.other_data}, c).at(0));
  if (!f.defined() || f.observation.verdict == Verdict::ok) return "";
  return "data set " + std::to_string(f.input) + " of " + std::to_string(s.other_data.size()) + " others still fails (" +
         f.observation.signature + ")";
}

// Whether a check shows the finding gone (a compile-error: compiled, or at least rendered; else: ok).
bool gone_as(bool compile_error, const Finding& f) {
  const Verdict v = f.observation.verdict;
  return f.defined() && (compile_error ? v != Verdict::compile_error && v != Verdict::render_error : v == Verdict::ok);
}
bool gone(const Search& s, const Finding& f) { return gone_as(s.compile_error, f); }

std::string search_rules(Search& s) {
  const std::string target = s.cfg.renderer_description.target.name;
  const Names names = used_switches(s, {});
  if (names.empty()) return "none (no " + target + " switch takes effect on it)";
  const std::vector<Analysis> facts{analyze(s.p)};
  const RefResult ref = interpret(s.p, facts[0]);
  const auto passes = [&](const Names& off) {
    s.tick();
    CompiledPathConfig c = s.cfg;
    c.switches_off = off;
    return gone(s, std::move(check({&s.p}, facts, {ref}, c, /*probe=*/false).at(0)));
  };
  Explained e = explain(names, passes, /*scan=*/true);
  const std::string of = std::to_string(names.size()) + " it uses";
  std::string how = e.alone ? "each alone off makes it pass" : "all of these off make it pass";
  if (e.names.empty()) {
    e = {stand_in_pair(s, names, passes), false};
    how = "together off make it pass: with the first off the second takes effect in its place";
  }
  if (e.names.empty()) return "none (neither all " + of + " nor any one of them off makes it pass)";
  if (e.names.size() == 1) how = "passes with it off";
  const std::string named = target + (e.names.size() == 1 ? " switch " : " switches ") + explained_text(e);
  if (const std::string other = still_fails(s, e.names); !other.empty())
    return "trigger " + named + " (" + how + " on the finding's data, but with " + (e.names.size() == 1 ? "it" : "them") +
           " off " + other + "; of the " + of + ", " +
           std::to_string(s.checks) + " checks)";
  return named + " (" + how + (s.other_data.empty() ? "" : " on its data and " + std::to_string(s.other_data.size()) + " others") +
         "; of the " + of + ", " + std::to_string(s.checks) + " checks)";
}

// The steps of the program's opts line (docs/format.md) the failure needs: each dropped alone makes it pass.
Names needed_opts(Search& s) {
  if (!s.p.opts) return {};
  Names out;
  for (size_t i = 0; i < s.p.opts->size(); ++i) {
    Program q = s.p;
    q.opts->erase(q.opts->begin() + static_cast<ptrdiff_t>(i));
    s.tick();
    if (gone(s, check({&q}, s.cfg, /*probe=*/false).at(0))) out.push_back(format_opt((*s.p.opts)[i]));
  }
  return out;
}

// The rule that is the root cause, and the optimization steps the failure needs: a rule found is the
// culprit (the steps in its details); without one, the steps are (`tinygrad opt PADTO:0:4 (...)`).
std::string search_switches(Search& s) {
  const Names opts = needed_opts(s);
  const std::string rule = has_switches(s.cfg) ? search_rules(s) : "none (no switches)";
  if (opts.empty()) return rule;
  const std::string needs = "needs opt" + std::string(opts.size() > 1 ? "s " : " ") + joined(opts) + ": passes without " +
                            (opts.size() > 1 ? "any one of them" : "it");
  if (rule.rfind("none (", 0) != 0) return rule.substr(0, rule.size() - 1) + "; " + needs + ")";
  return s.cfg.renderer_description.target.name + " opt" + (opts.size() > 1 ? "s " : " ") + joined(opts) + " (" + needs +
         "; rules: " + rule.substr(6);
}

// ---- compilers, on the standalone reproducer --------------------------------------------------------

bool compiler_says(const CompiledPathConfig& cfg, const char* word) {
  return compiler_id(cfg.cc).version.find(word) != std::string::npos;
}
bool optimizes(const CompiledPathConfig& cfg) {
  return cfg.renderer_cmd.empty() || language_row(cfg.renderer_description.language).compiler_optimizes;
}
bool is_clang(const CompiledPathConfig& cfg) { return optimizes(cfg) && compiler_says(cfg, "clang version"); }
bool is_gcc(const CompiledPathConfig& cfg) {
  return optimizes(cfg) && !compiler_says(cfg, "clang version") && compiler_says(cfg, "Free Software Foundation");
}

// The reproducer built with `extra` flags and run, never past the search's deadline. Throws UserError
// when there is none (UNDEFINED, a render-error).
StandaloneOutcome build(Search& s, const Names& extra) {
  s.tick();
  if (!s.standalone) s.standalone = standalone_c(s.p, standalone_for(s.p, s.cfg));
  const double left = std::chrono::duration<double>(s.deadline - Clock::now()).count();
  const StandaloneOutcome out =
      build_and_run(*s.standalone, s.cfg.cc, s.cfg.cflags, extra, std::clamp(left, 0.1, std::max(s.cfg.timeout_s, 60.0)));
  if (out.timed_out && Clock::now() >= s.deadline) throw OutOfTime{};
  return out;
}
bool builds_pass(Search& s, const Names& extra) {
  const StandaloneOutcome out = build(s, extra);
  return s.compile_error ? out.compiled : out.passes();
}

// Why a compiler search cannot start ("" when it can): no C, or a reproducer that passes as built.
std::string baseline_problem(Search& s, const Names& extra = {}) {
  try {
    if (builds_pass(s, extra)) return "none (the standalone reproducer passes as built: the failure needs more than it holds)";
  } catch (const UserError& e) { return std::string("none (no standalone reproducer: ") + e.what() + ")"; }
  return "";
}

// Flags that change what a program means rather than how it is optimised: never a culprit.
const std::set<std::string> kMeaningFlags = {
    "-fsigned-zeros", "-ftrapping-math", "-fmath-errno", "-fexceptions", "-fasynchronous-unwind-tables",
    "-funwind-tables", "-fsemantic-interposition", "-fstack-protector", "-fshort-enums", "-fplt",
    "-fdelete-null-pointer-checks", "-fstrict-aliasing", "-fstrict-overflow", "-fwrapv", "-ftrapv"};

Names gcc_enabled_flags(const CompiledPathConfig& cfg) {
  std::vector<std::string> argv{cfg.cc};
  for (std::string& f : split_command(cfg.cflags)) argv.push_back(std::move(f));
  argv.insert(argv.end(), {"-Q", "--help=optimizers"});
  const ProcessResult r = run_process(argv);
  Names out;
  static const std::regex line(R"(^\s+(-f[a-z0-9-]+)\s+\[enabled\]\s*$)");
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);)
    if (std::smatch m; std::regex_match(l, m, line) && !kMeaningFlags.count(m[1])) out.push_back(m[1]);
  return out;
}

// -fX -> -fno-X
Names negated(Names flags) {
  for (std::string& f : flags) f = "-fno-" + f.substr(2);
  return flags;
}

std::string search_gcc(Search& s) {
  if (std::string why = baseline_problem(s); !why.empty()) return why;
  const Names flags = gcc_enabled_flags(s.cfg);
  const auto passes = [&](const Names& set) { return builds_pass(s, negated(set)); };
  const std::string level = std::to_string(flags.size()) + " -f flags '" + s.cfg.cflags + "' enables";
  const Explained e = flags.empty() ? Explained{} : explain(flags, passes, /*scan=*/false);
  if (e.names.empty()) return "none (fails with all of the " + level + " off)";
  const Explained no{negated(e.names), e.alone};
  const std::string how = e.names.size() == 1 ? explained_text(no) + " makes"
                          : e.alone           ? "the -fno- of each alone makes"
                                              : explained_text(no) + " together make";
  return "gcc " + explained_text(e) + " (" + how + " it pass; of the " + level + ", " + std::to_string(s.checks) + " checks)";
}

// `(N) NAME on UNIT` of pass N from the -opt-bisect-limit lines of a compile.
std::string bisect_pass(const std::string& log, long n) {
  const std::string tag = "running pass (" + std::to_string(n) + ") ";
  const size_t at = log.find(tag);
  if (at == std::string::npos) return "#" + std::to_string(n);
  const size_t from = at + tag.size(), end = log.find('\n', from);
  return log.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

long bisect_passes(const std::string& log) {
  long last = 0;
  static const std::regex pass(R"(BISECT: running pass \((\d+)\))");
  for (std::sregex_iterator it(log.begin(), log.end(), pass), end; it != end; ++it) last = std::max(last, std::stol((*it)[1]));
  return last;
}

// Backend flags tried when no optional pass makes the difference.
const Names kBackendProbes[] = {{"-mllvm", "-fast-isel=false"}, {"-mllvm", "-fast-isel"}, {"-mllvm", "-global-isel"}};

std::string search_clang(Search& s) {
  if (std::string why = baseline_problem(s); !why.empty()) return why;
  const auto limit = [](long n) { return Names{"-mllvm", "-opt-bisect-limit=" + std::to_string(n)}; };
  const StandaloneOutcome all = build(s, limit(-1));
  const long total = bisect_passes(all.compiler_stderr);
  if (s.compile_error ? all.compiled : all.passes()) return "none (it passes when built with -mllvm -opt-bisect-limit=-1)";
  if (builds_pass(s, limit(0))) {
    long lo = 0, hi = total;  // passes at lo, fails at hi
    while (hi - lo > 1) {
      const long mid = lo + (hi - lo) / 2;
      (builds_pass(s, limit(mid)) ? lo : hi) = mid;
    }
    const std::string pass = bisect_pass(build(s, limit(hi)).compiler_stderr, hi);
    const size_t on = pass.find(" on ");
    return "clang pass " + pass.substr(0, on) + " (" + std::to_string(hi) + " of " + std::to_string(total) +
           (on == std::string::npos ? "" : ", " + pass.substr(on + 1)) +
           "; passes with -mllvm -opt-bisect-limit=" + std::to_string(lo) + ", " + std::to_string(s.checks) + " checks)";
  }
  for (const Names& probe : kBackendProbes)
    if (builds_pass(s, probe))
      return "clang backend " + joined(probe) + " (passes with it; fails with every optional pass skipped, -opt-bisect-limit=0)";
  return "none (fails with every optional clang pass skipped, -opt-bisect-limit=0, and with each backend flag tried)";
}

struct CulpritSearch {
  const char* name;
  bool (*applies)(const CompiledPathConfig&);
  std::string (*search)(Search&);
  const char* description;
};
const CulpritSearch kCulpritSearches[] = {
    {"switches", has_switches_or_opts, search_switches,
     "a plug-in's switches (handshake), ddmin from all off, else one at a time; the opts steps it needs"},
    {"clang", is_clang, search_clang, "-mllvm -opt-bisect-limit bisected; backend flags when no optional pass matters"},
    {"gcc", is_gcc, search_gcc, "the -f flags of the level, ddmin to the smallest set whose -fno- makes it pass"},
};

}  // namespace

Culprit find_culprit(const Program& p, const std::string& signature, const CompiledPathConfig& cfg, const CulpritOptions& o) {
  const Clock::time_point start = Clock::now();
  Clock::time_point deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.time_limit_s));
  if (o.stop_at) deadline = std::min(deadline, *o.stop_at);
  CompiledPathConfig bounded = cfg;  // the plug-in's requests end with the search
  bounded.render_stop_at = cfg.render_stop_at ? std::min(*cfg.render_stop_at, deadline) : deadline;
  Search search{p, bounded, deadline, signature.rfind(verdict_name(Verdict::compile_error), 0) == 0, 0, std::nullopt, o.other_data};
  std::string why;      // each search's reason for naming nothing, `SEARCH: reason; ...`
  std::string trigger;  // a search's `trigger ...`: kept unless a later one names a culprit
  for (const CulpritSearch& row : kCulpritSearches) {
    if (!row.applies(bounded)) continue;
    std::string text;
    try {
      text = row.search(search);
    } catch (const OutOfTime&) { text = "none (out of time after " + std::to_string(search.checks) + " checks)"; }
    if (!culprit_key(text).empty()) return {text, search.checks, std::chrono::duration<double>(Clock::now() - start).count()};
    if (text.rfind("trigger ", 0) == 0 && trigger.empty()) {
      trigger = text;
      continue;
    }
    const size_t open = text.find(" (");  // "none (REASON)"
    why += (why.empty() ? "" : "; ") + std::string(row.name) + ": " +
           (open == std::string::npos ? text : text.substr(open + 2, text.size() - open - 3));
    if (Clock::now() >= deadline) break;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!trigger.empty()) return {trigger, search.checks, seconds};
  if (why.empty()) why = "no culprit search for compiler '" + cfg.cc + "'";
  // a meta value is one line: a reason may quote a compiler's or plug-in's message
  std::replace_if(
      why.begin(), why.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  if (why.size() > 400) why = why.substr(0, 400) + "...";
  return {"none (" + why + ")", search.checks, seconds};
}

bool finding_gone(const std::string& signature, const Finding& f) {
  return gone_as(signature.rfind(verdict_name(Verdict::compile_error), 0) == 0, f);
}

}  // namespace uf
