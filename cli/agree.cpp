// `uopfuzz agree`: the N-version check of approximated results (fuzz/oracle/agreement.h) across the
// backends a plug-in's handshake lists: the same programs, on the same data sets, on each; every result of
// an op two or more of them approximate compared bit for bit; each disagreement a bucket, saved once.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/gen/generator.h"
#include "fuzz/oracle/agreement.h"
#include "interp/approx.h"

namespace uf::cli {

namespace {

struct AgreeOptions {
  std::vector<std::string> files;
  CompiledFlags flags;
  std::vector<std::string> backends;  // by name; empty: every one the handshake lists
  uint64_t seed = 1;
  int64_t count = 0;
  double time_s = 0;
  int inputs = 4;
  double approx_boost = 4;
  std::string corpus = "corpus/agree", json, policy;
  std::vector<std::string> without;
};

struct Backend {
  std::string name;
  CompiledPathConfig cfg;
};

struct Tally {
  int64_t programs = 0, data_sets = 0;
  std::map<std::string, int64_t> compared;  // by "OP DTYPE": results two or more backends stored
  // by backend, then by signature: data sets whose exact part was wrong or did not run
  std::map<std::string, std::map<std::string, int64_t>> left_out;
  std::map<std::string, int64_t> disagreements;  // by signature: results
  std::map<std::string, std::string> first;      // by signature: the first message
  std::vector<std::string> saved;
};

std::vector<Backend> backends_of(const AgreeOptions& o, const Program* recorded, std::string* suggested_policy = nullptr) {
  const CompiledPathConfig own = o.flags.config(recorded);
  if (suggested_policy) *suggested_policy = own.renderer_description.policy;
  std::vector<Backend> out;
  for (const PluginDescription::Backend& b : own.renderer_description.backends)
    if (o.backends.empty() || std::find(o.backends.begin(), o.backends.end(), b.name) != o.backends.end())
      out.push_back({b.name, o.flags.for_backend(b).config(recorded)});
  if (out.size() < 2)
    throw UserError("agree: needs two or more backends, and the renderer's handshake lists " +
                    std::to_string(own.renderer_description.backends.size()) + (o.backends.empty() ? "" : " (after --backends)") +
                    " (`backends`, docs/format.md)");
  return out;
}

// What every backend takes: the policy (--policy, else the one the handshake suggests, as `fuzz` takes it)
// minus each one's `without`; the ops any of them approximates drawn approx_boost times as often (their
// results are all this compares).
GenPolicy common_policy(const AgreeOptions& o, const std::string& suggested, const std::vector<Backend>& bs,
                        std::vector<Op>& approx) {
  std::vector<std::string> names = o.without;
  for (const Backend& b : bs) {
    const PluginDescription& d = b.cfg.renderer_description;
    names.insert(names.end(), d.without.begin(), d.without.end());
    for (Op op : d.approximate)
      if (std::find(approx.begin(), approx.end(), op) == approx.end()) approx.push_back(op);
  }
  const std::string file = o.policy.empty() ? suggested : o.policy == "default" ? "" : o.policy;
  if (!file.empty()) std::cout << "policy " << file << "\n";
  GenPolicy p = policy_without(file, names);
  for (Op op : approx) p.op_weight[static_cast<size_t>(op)] *= o.approx_boost;
  return p;
}

// The disagreement's single-op program when the backends still disagree on it alike (d then says where in
// it), else `whole`.
Program reproducer(Disagreement& d, const Program& whole, const std::vector<Backend>& bs) {
  Program one = single_op_program(d);
  const RefResult ref = interpret(one);
  if (ref.undefined) return whole;
  std::vector<VersionRun> runs;
  for (const Backend& b : bs) {
    KernelOutcome out = run_compiled(one, b.cfg);
    Observation o = compare(one, ref, out, b.cfg.renderer_description.approximate);
    runs.push_back({b.name, b.cfg.renderer_description.approximate, std::move(out), std::move(o)});
  }
  const Agreement a = compare_versions(ref, runs);
  if (a.disagreements.empty() || a.disagreements[0].signature() != d.signature()) return whole;
  d = a.disagreements[0];
  return one;
}

void note(const Disagreement& d, const Program& p, const std::vector<Backend>& bs, Corpus* corpus, Tally& t) {
  const std::string sig = d.signature();
  if (t.disagreements[sig]++ == 0) t.first[sig] = d.message();
  if (!corpus || corpus->has(sig)) return;
  Disagreement shown = d;
  Program r = reproducer(shown, p, bs);
  r.meta.push_back({"disagreement", shown.message()});
  Observation o;
  o.verdict = Verdict::mismatch;
  o.signature = sig;
  o.message = shown.message();
  o.expect = interpret(r).buffers;
  if (const auto path = corpus->save(std::move(r), o, FindingContext{"agree", bs.front().cfg, ""})) {
    t.saved.push_back(*path);
    std::cout << "saved " << *path << ": " << sig << "\n  " << shown.message() << "\n";
  }
}

// p on each of its data sets (sets[0] is p itself) on every backend, compared.
void check_program(const std::vector<Program>& sets, const std::vector<Backend>& bs, Corpus* corpus, Tally& t) {
  std::vector<const Program*> ptrs;
  for (const Program& s : sets) ptrs.push_back(&s);
  std::vector<std::vector<KernelOutcome>> outs;
  for (const Backend& b : bs) outs.push_back(std::move(run_compiled_on_each({ptrs}, b.cfg).at(0)));
  for (const auto& per_backend : outs)  // the --time budget ended during a render: not checked, not counted
    for (const KernelOutcome& out : per_backend)
      if (out.out_of_time) return;
  ++t.programs;
  for (size_t k = 0; k < sets.size(); ++k) {
    const RefResult ref = interpret(sets[k]);
    if (ref.undefined) continue;
    ++t.data_sets;
    std::vector<VersionRun> runs;
    for (size_t i = 0; i < bs.size(); ++i) {
      const std::vector<Op>& approx = bs[i].cfg.renderer_description.approximate;
      Observation o = compare(sets[k], ref, outs[i][k], approx);
      runs.push_back({bs[i].name, approx, std::move(outs[i][k]), std::move(o)});
      if (!exact_part_right(runs.back())) ++t.left_out[bs[i].name][runs.back().observation.signature];
    }
    const Agreement a = compare_versions(ref, runs);
    for (const auto& [what, n] : a.compared) t.compared[what] += n;
    for (const Disagreement& d : a.disagreements) note(d, sets[k], bs, corpus, t);
  }
}

std::vector<Program> with_data_sets(const Program& p, uint64_t seed, int inputs, const GenPolicy& policy) {
  std::vector<Program> sets{p};
  for (int k = 1, n = data_sets_for(p, inputs); k < n; ++k) {
    Program q = p;
    q.data = input_data(p, seed, static_cast<uint64_t>(k), policy);
    sets.push_back(std::move(q));
  }
  return sets;
}

nlohmann::json summary_json(const Tally& t, const std::vector<Backend>& bs) {
  nlohmann::json j{{"programs", t.programs},
                   {"data_sets", t.data_sets},
                   {"compared", t.compared},
                   {"left_out", t.left_out},
                   {"saved", t.saved}};
  for (const Backend& b : bs) j["backends"].push_back(b.name);
  for (const auto& [sig, n] : t.disagreements)
    j["disagreements"].push_back({{"signature", sig}, {"results", n}, {"first", t.first.at(sig)}});
  return j;
}

void print_summary(const Tally& t) {
  int64_t compared = 0;
  std::string by_op;
  for (const auto& [what, n] : t.compared) {
    compared += n;
    by_op += (by_op.empty() ? " (" : ", ") + what + " " + std::to_string(n);
  }
  std::cout << "programs " << t.programs << ", data sets " << t.data_sets << ", approximated results compared " << compared
            << (by_op.empty() ? "" : by_op + ")") << ", disagreements " << t.disagreements.size() << "\n";
  for (const auto& [name, why] : t.left_out) {
    std::cout << "  " << name << " left out (exact part wrong or not run):";
    for (const auto& [sig, n] : why) std::cout << " " << n << " " << (sig.empty() ? "mismatch" : sig) << ";";
    std::cout << "\n";
  }
  for (const auto& [sig, n] : t.disagreements)
    std::cout << "  " << sig << ": " << n << " results, e.g. " << t.first.at(sig) << "\n";
}

int run_agree(const AgreeOptions& o) {
  Tally t;
  if (!o.files.empty()) {  // re-check files: each on its own data, under its recorded renderer's backends
    for (const std::string& f : o.files) {
      const Program p = load_program(f);
      check_program({p}, backends_of(o, &p), nullptr, t);
    }
    print_summary(t);
    return t.disagreements.empty() ? kOk : kFailure;
  }
  std::string suggested;
  std::vector<Backend> bs = backends_of(o, nullptr, &suggested);
  const auto start = std::chrono::steady_clock::now();
  if (o.time_s > 0)  // no render lasts past the budget, whatever a plug-in does
    for (Backend& b : bs)
      b.cfg.render_stop_at =
          start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.time_s));
  std::vector<Op> approx;
  const GenPolicy policy = common_policy(o, suggested, bs, approx);
  Corpus corpus(o.corpus);
  const int64_t count = o.count > 0 ? o.count : o.time_s > 0 ? INT64_MAX : 100;
  for (int64_t i = 0; i < count; ++i) {
    if (o.time_s > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= o.time_s) break;
    const uint64_t seed = program_seed(o.seed, 0, static_cast<uint64_t>(i));
    Program p = generate(seed, policy);
    if (!keep_approximated_as_leaves(p, approx) || interpret(p).approx_stores.empty()) continue;
    check_program(with_data_sets(p, seed, o.inputs, policy), bs, &corpus, t);
  }
  print_summary(t);
  if (!o.json.empty()) write_output(o.json, summary_json(t, bs).dump(2) + "\n");
  return t.saved.empty() ? kOk : kFailure;
}

}  // namespace

std::vector<Command> agree_commands(CLI::App& app) {
  auto o = std::make_shared<AgreeOptions>();
  CLI::App* a = app.add_subcommand(
      "agree", "Run the same programs on every backend a plug-in lists; compare their approximated results bit for bit");
  a->add_option("FILE", o->files, "re-check these files (a saved disagreement) instead of generating programs");
  a->add_option("--backends", o->backends, "only these of the handshake's backends, comma-separated (default: all)")
      ->delimiter(',');
  a->add_option("--seed", o->seed, "campaign seed")->capture_default_str();
  a->add_option("--count", o->count, "programs to generate (default 100 when --time is not given)");
  a->add_option("--time", o->time_s, "stop after this many seconds");
  a->add_option("--inputs", o->inputs, "data sets each program runs on")->check(CLI::Range(1, 64))->capture_default_str();
  a->add_option("--approx-boost", o->approx_boost, "how much more often the approximated ops are drawn")->capture_default_str();
  a->add_option("--corpus", o->corpus, "where each new disagreement is saved")->capture_default_str();
  a->add_option("--json", o->json, "write the summary here as JSON");
  a->add_option("--policy", o->policy, "generator policy JSON (default: the one the handshake suggests; `default`: uopfuzz's)");
  add_without_option(a, o->without);
  o->flags.add_to(a);
  return {{a, [o] { return run_agree(*o); }}};
}

}  // namespace uf::cli
