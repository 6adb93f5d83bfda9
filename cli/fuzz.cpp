// `uopfuzz gen`, `uopfuzz policy`, `uopfuzz reduce`, `uopfuzz fuzz`.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>

#include "fuzz/campaign/campaign.h"
#include "cli/cli.h"
#include "codegen/c_reduce.h"
#include "codegen/runtime/files.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/campaign/events.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/policy_fit.h"
#include "fuzz/gen/policy_json.h"
#include "fuzz/oracle/passes.h"
#include "fuzz/oracle/reduce.h"
#include "fuzz/oracle/shrink.h"

namespace uf::cli {

namespace {

struct GenOptions {
  uint64_t seed = 1;
  int64_t count = 1;
  std::string out;
  std::string policy;
  std::vector<std::string> without;
};


void add_policy_option(CLI::App* app, std::string& file, const std::string& more = "") {
  app->add_option("--policy", file, "generator policy JSON (as `uopfuzz policy` prints; keys not given keep their defaults)" + more);
}

struct PolicyOptions {
  std::vector<std::string> without;
  bool markdown = false;
  std::string fit;  // a directory of a target's kernels (.uop)
  double fit_weight = 0.5;
};

// `uopfuzz policy`: the default policy (after --without) as JSON, the shape --policy reads; --fit DIR:
// fitted to DIR's kernels (policy_fit.h); --markdown: the table of every knob in docs/format.md.
int run_policy(const PolicyOptions& o) {
  if (o.markdown) {
    write_output("", policy_markdown());
    return kOk;
  }
  GenPolicy policy = policy_without("", o.without);
  if (!o.fit.empty()) {
    std::vector<Program> kernels;
    for (const std::filesystem::path& f : uop_files_in(o.fit)) kernels.push_back(load_program(f.string()));
    if (kernels.empty()) throw UserError(o.fit + ": --fit: no .uop file in the directory");
    const KernelShapes shapes = measure_shapes(kernels);
    policy = fit_policy(policy, shapes, o.fit_weight);
    std::cerr << "uopfuzz: policy fitted to " << shapes.kernels << " kernels of " << o.fit << " (weight " << o.fit_weight
              << "): " << std::accumulate(shapes.ops.begin(), shapes.ops.end(), 0.0) << " ALU nodes, "
              << std::accumulate(shapes.reads.begin(), shapes.reads.end(), 0.0) << " loads in loops, "
              << std::accumulate(shapes.depths.begin(), shapes.depths.end(), 0.0) << " kernels with loops\n";
  }
  write_output("", policy_to_json(policy).dump(2) + "\n");
  return kOk;
}

// Program `seed` is generate(seed): the number a corpus file's `meta seed` records, so
// `uopfuzz gen --seed N` rebuilds it exactly. --count N writes seeds S .. S+N-1.
int run_gen(const GenOptions& o) {
  if (o.count > 1 && o.out.empty()) throw UserError("gen: --count above 1 needs --out DIR");
  if (!o.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw UserError(o.out + ": cannot create directory (" + ec.message() + ")");
  }
  const GenPolicy policy = policy_without(o.policy, o.without);
  // A program of a changed policy says which: `gen --seed N` alone does not rebuild it.
  const bool custom = !o.policy.empty() && policy_to_json(policy_without("", o.without)) != policy_to_json(policy);
  for (int64_t i = 0; i < o.count; ++i) {
    const uint64_t seed = o.seed + static_cast<uint64_t>(i);
    Program p = generate(seed, policy);
    if (!o.without.empty()) p.set_meta("without", CLI::detail::join(o.without, ","));
    if (custom) p.set_meta("policy", o.policy);
    const RefResult ref = interpret(p);
    if (ref.undefined)
      p.set_meta("reference", "UNDEFINED (" + ref.undefined->reason + ")");
    else
      p.expect = ref.buffers;
    const std::string text = print_program(p);
    write_output(o.out.empty() ? "" : (std::filesystem::path(o.out) / ("gen-" + std::to_string(seed) + ".uop")).string(), text);
  }
  return kOk;
}

struct ReduceCliOptions {
  std::string file, out;
  double time_s = 300;
  std::vector<std::string> passes;
  bool verbose = false, list_passes = false, c = false;
  CompiledFlags flags;
};

// `reduce --c`: C-Vise on the standalone reproducer's kernel; the result goes to OUT (default FILE's
// name with .reduced.c) with the exported file's header, a line on how it was reduced, and the driver.
int run_reduce_c(const ReduceCliOptions& o, const Program& p, const CompiledPathConfig& cfg, const Observation& obs) {
  const std::string out = !o.out.empty() ? o.out : std::filesystem::path(o.file).replace_extension(".reduced.c").string();
  StandaloneC s = make_standalone(p, o.file, out, cfg);
  const std::optional<TempDir> work =
      TempDir::create((std::filesystem::temp_directory_path() / "uopfuzz-reduce-c-XXXXXX").string());
  if (!work) throw UserError("reduce --c: cannot create a temporary directory");
  CReduceSpec spec;
  spec.failure = verdict_name(obs.verdict);
  spec.signal = obs.signal;
  spec.compile_message = obs.message;
  spec.cc = cfg.cc;
  spec.cflags = cfg.cflags;
  spec.kernel = s.kernel_source;
  spec.driver = standalone_driver(p, s);
  spec.work_dir = work->path();
  spec.time_s = o.time_s;
  std::cerr << "reduce --c: " << o.file << " fails as `" << obs.signature << "`; C-Vise on its " << s.kernel_source.size()
            << "-byte kernel (at most " << o.time_s << " s)\n";
  const CReduceResult r = reduce_c(spec);
  s.kernel_source = r.kernel;
  s.header.insert(s.header.begin() + 1,
                  std::string("Reduced with C-Vise by `uopfuzz reduce --c` (") +
                      (r.complete ? "to the end" : "stopped by --time") +
                      "): the kernel still fails the same way, and built at -O0 with the undefined-behaviour and "
                      "address sanitizers by gcc and clang it runs clean.");
  replace_user_file(out, standalone_c(p, s));
  std::cerr << "reduce --c: " << spec.kernel.size() << " -> " << r.kernel.size() << " bytes of kernel in " << r.seconds
            << " s; wrote " << out << "\n";
  return kOk;
}

// `uopfuzz reduce -v`: what each pass did, one line per pass.
std::string pass_stats_text(const std::vector<PassStats>& passes) {
  std::string out = "reduce: pass                tried  accepted  seconds\n";
  for (const PassStats& s : passes) {
    char line[128];
    std::snprintf(line, sizeof line, "reduce: %-18s %7d %9d %8.2f\n", s.name.c_str(), s.tried, s.accepted, s.seconds);
    out += line;
  }
  return out;
}

int run_reduce(const ReduceCliOptions& o) {
  if (o.list_passes) {
    std::cout << pass_list_text();
    return kOk;
  }
  if (o.file.empty()) throw UserError("reduce: FILE is required");
  passes_named(o.passes);  // an unknown name is a usage error before any work
  const Program p = load_program(o.file);
  const CompiledPathConfig cfg = o.flags.config(&p);
  const Finding first = check({&p}, cfg).at(0);
  if (!first.defined()) {
    std::cerr << o.file << ": UNDEFINED under the reference: nothing to reduce\n";
    return kUndefined;
  }
  const Observation& obs = first.observation;
  if (obs.verdict == Verdict::ok) {
    std::cerr << o.file << ": the compiled path agrees with the reference: nothing to reduce\n";
    return kFailure;
  }
  if (o.c) return run_reduce_c(o, p, cfg, obs);
  std::cerr << "reduce: " << o.file << " fails as `" << obs.signature << "`, " << program_cost(p).nodes << " nodes\n";
  ReduceOptions ro;
  ro.time_limit_s = o.time_s;
  ro.log = [](const std::string& line) { std::cerr << line << "\n"; };
  ro.passes = o.passes;
  ReduceResult r = reduce(p, obs.signature, cfg, ro);
  const bool kept = r.observation.signature == obs.signature;
  FindingContext ctx{"", cfg, ""};
  if (const std::string* v = p.meta_value("cc_version")) ctx.compiler_version = *v;
  Program out = kept ? r.program : p;
  out.set_meta("reduced", kept && r.complete ? "yes" : "no");  // no: stopped by --time, run it again
  write_output(o.out, reproducer_text(std::move(out), kept ? r.observation : obs, ctx));
  std::cerr << "reduce: " << program_cost(r.program).nodes << " nodes after " << r.steps << " steps, " << r.candidates
            << " candidates in " << r.compiler_calls << " batches, " << r.seconds << " s"
            << (kept && r.complete ? "" : " (not finished: `meta reduced = no`)") << "\n";
  if (!kept)  // say why the steps were thrown away: else "not finished" reads as a budget too short
    std::cerr << "reduce: the result "
              << (r.observation.verdict == Verdict::ok ? "passes" : "fails as `" + r.observation.signature + "`")
              << " when checked again, not `" << obs.signature << "` as when it was kept: the target's verdict depends on more "
              << "than the program (memory it never initialised, what ran before it); wrote the input unchanged\n";
  if (o.verbose) std::cerr << pass_stats_text(r.passes);
  return kOk;
}

// The policy's optimization sequences for the target (`fuzz --opts`): drawn only from the actions its
// handshake lists, with p_opts 0.9 unless the policy gives its own share; none for "heuristic" and
// "none" (the worker gives "none" programs an empty opts line), nor for a target without opts.
void with_target_opts(GenPolicy& policy, const std::string& mode, const std::vector<std::string>& actions) {
  const auto names = enum_names(OptAction{});
  for (size_t a = 0; a < names.size(); ++a)
    if (std::find(actions.begin(), actions.end(), names[a]) == actions.end()) policy.opt_action_weight[a] = 0;
  const bool any = std::any_of(policy.opt_action_weight.begin(), policy.opt_action_weight.end(), [](double w) { return w > 0; });
  if (mode != "random" || !any) policy.p_opts = 0;
  else if (policy.p_opts == 0) policy.p_opts = 0.9;
}

struct FuzzCliOptions {
  CampaignOptions campaign;
  CompiledFlags flags;
  std::vector<std::string> without;
  std::string policy, matrix, guide = "coverage", target_rules, opts = "random", known;
  bool no_reduce = false, no_culprit = false, quiet = false, remarks = false;
};

// What the target's handshake suggests (docs/format.md, "Target suggestions"), taken where the user's
// options leave it open: --policy (`default`: the built-in one), --seeds, --guide none and --known
// (`none`) say otherwise. The summary's `suggested` says what was taken.
void take_suggestions(FuzzCliOptions& o) {
  const PluginDescription& d = o.campaign.cfg.renderer_description;
  CampaignOptions& c = o.campaign;
  const auto is_dir = [&](const char* key, const std::string& dir) {
    if (!std::filesystem::is_directory(dir))
      throw UserError("the renderer's handshake suggests " + std::string(key) + " '" + dir + "', which is not a directory here");
  };
  if (!d.command.empty() && d.command != c.cfg.renderer_cmd) {  // the same configuration, every option spelled out
    c.cfg.renderer_cmd = d.command;
    c.suggested["command"] = d.command;
  }
  if (o.policy.empty() && !d.policy.empty()) {
    o.policy = d.policy;
    c.suggested["policy"] = d.policy;
  }
  if (o.policy == "default") o.policy.clear();
  if (c.seeds_dir.empty() && o.guide != "none" && !d.seeds.empty()) {
    for (const std::string& dir : d.seeds) is_dir("seeds", dir);
    c.read_seed_dirs = d.seeds;
    c.suggested["seeds"] = d.seeds;
  }
  if (o.known.empty() && !d.known.empty() && !d.switches.empty()) {
    is_dir("known", d.known);
    o.known = d.known;
    c.suggested["known"] = d.known;
  }
  if (!o.known.empty() && o.known != "none") {
    c.known_dir = o.known;
    c.known = load_known(o.known, d.switches);
  }
}

int run_fuzz(FuzzCliOptions o) {
  if (o.campaign.time_s <= 0 && o.campaign.count <= 0) o.campaign.time_s = 60;
  o.campaign.cfg = o.flags.config();
  o.campaign.cfg.remarks = o.remarks;
  take_suggestions(o);
  for (const std::string& name : o.campaign.cfg.renderer_description.without)  // what the plug-in's target cannot take
    if (std::find(o.without.begin(), o.without.end(), name) == o.without.end()) o.without.push_back(name);
  o.campaign.policy = policy_without(o.policy, o.without);
  with_target_opts(o.campaign.policy, o.opts, o.campaign.cfg.renderer_description.opts);
  o.campaign.opts_mode = o.opts;
  o.campaign.without_names = CLI::detail::join(o.without, ",");
  o.campaign.policy_file = o.policy;
  o.campaign.reduce = !o.no_reduce;
  o.campaign.culprit = !o.no_reduce && !o.no_culprit;
  if (!o.matrix.empty()) {
    o.campaign.matrix = parse_matrix(o.matrix);
    check_matrix_compilers(o.campaign.matrix);
  }
  o.campaign.guide = guide_from_name(o.guide);
  if (o.campaign.seeds_dir.empty()) o.campaign.seeds_dir = o.campaign.corpus_dir + "/seeds";
  if (!o.target_rules.empty()) o.campaign.target_rules = parse_target_rules(o.target_rules);
  o.campaign.progress = !o.quiet;
  if (o.campaign.events_path.empty() && !o.campaign.json_path.empty())
    o.campaign.events_path = default_events_path(o.campaign.json_path);
  const CampaignSummary s = run_campaign(o.campaign);
  std::cerr << s.to_text();
  if (!o.campaign.json_path.empty()) write_output(o.campaign.json_path, s.to_json().dump(2) + "\n");
  if (!s.errors.empty()) return kUsage;
  return s.saved.empty() ? kOk : kFailure;
}

}  // namespace

std::vector<Command> fuzz_commands(CLI::App& app) {
  auto gen_opts = std::make_shared<GenOptions>();
  CLI::App* gen = app.add_subcommand("gen", "Write generated programs (with data and the reference's expect lines)");
  gen->add_option("--seed", gen_opts->seed, "program seed (a corpus file's meta seed)")->required();
  gen->add_option("--count", gen_opts->count, "how many programs (seeds S, S+1, ...)")->check(CLI::PositiveNumber);
  gen->add_option("--out", gen_opts->out, "directory for gen-SEED.uop files (default: one program to stdout)");
  add_policy_option(gen, gen_opts->policy);
  add_without_option(gen, gen_opts->without);

  auto policy_opts = std::make_shared<PolicyOptions>();
  CLI::App* pol = app.add_subcommand("policy", "Print the generator policy as JSON (the shape --policy reads)");
  add_without_option(pol, policy_opts->without);
  pol->add_flag("--markdown", policy_opts->markdown, "print the knobs' table of docs/format.md instead (policy.def)");
  pol->add_option("--fit", policy_opts->fit,
                  "a directory of a target's kernels (.uop): the policy's op, dtype and loop tables moved toward theirs");
  pol->add_option("--fit-weight", policy_opts->fit_weight, "the kernels' share of each fitted table (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));

  auto reduce_opts = std::make_shared<ReduceCliOptions>();
  CLI::App* red =
      app.add_subcommand("reduce", "Minimise a failing program, keeping its failure signature (exit 1: it did not fail)");
  red->add_option("FILE", reduce_opts->file, "program file (.uop)");
  red->add_option("-o,--out", reduce_opts->out, "write the reproducer here (default stdout)");
  red->add_option("--time", reduce_opts->time_s, "give up shrinking after this many seconds")->capture_default_str();
  red->add_option("--passes", reduce_opts->passes, "run only these passes, comma-separated (default: all; see --list-passes)")
      ->delimiter(',')
      ->allow_extra_args(false);
  red->add_flag("-v,--verbose", reduce_opts->verbose, "print each pass's candidates tried, steps accepted and seconds");
  red->add_flag("--list-passes", reduce_opts->list_passes, "print the passes (name and description) and exit");
  red->add_flag(
      "--c", reduce_opts->c,
      "reduce the exported C instead, with C-Vise (-o default: FILE as .reduced.c; the UB-free test of docs/format.md)");
  red->footer("Passes, in the order each round tries them:\n" + pass_list_text());
  reduce_opts->flags.add_to(red);

  auto fuzz_opts = std::make_shared<FuzzCliOptions>();
  CLI::App* fz =
      app.add_subcommand("fuzz", "Generate, run, compare, minimise; save new failures (exit 1: new reproducers saved)");
  CampaignOptions& c = fuzz_opts->campaign;
  fz->add_option("--seed", c.seed, "campaign seed")->capture_default_str();
  fz->add_option("--time", c.time_s, "stop after this many seconds (default 60 when --count is not given)");
  fz->add_option("--count", c.count, "stop after this many programs");
  fz->add_option("--jobs,-j", c.jobs, "worker processes")->check(CLI::Range(1, 256))->capture_default_str();
  fz->add_option("--inputs", c.inputs, "data sets each compiled kernel runs on")
      ->check(CLI::Range(1, kMaxInputs))
      ->capture_default_str();
  fz->add_option("--corpus", c.corpus_dir, "where reproducers are saved")->capture_default_str();
  fz->add_option("--json", c.json_path, "write the summary here as JSON");
  fz->add_option("--events", c.events_path, "write the event log here (default: beside --json, X.json -> X.events.jsonl)");
  fz->add_option("--reduce-time", c.reduce_time_s, "seconds to spend minimising one failure")->capture_default_str();
  fz->add_option("--reduce-share", c.reduce_share,
                 "while generating, the share of a worker's time its reductions (and culprit searches) may take; the "
                 "rest waits until generation ends (1: reduce each finding before the next batch)")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  fz->add_option("--reduce-render-timeout", c.reduce_render_timeout_s,
                 "render timeout while checking and reducing a render-error timeout (at most --render-timeout)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  fz->add_flag("--no-reduce", fuzz_opts->no_reduce, "save failures as found, without minimising (nor a culprit search)");
  fz->add_flag("--no-culprit", fuzz_opts->no_culprit, "no culprit search for new buckets (the pass, flags or plug-in switch)");
  fz->add_option("--culprit-time", c.culprit_time_s, "seconds for one bucket's culprit search")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  fz->add_option("--matrix", fuzz_opts->matrix, "triage each new bucket across CC:FLAGS,CC:FLAGS,... and record its meta blame");
  fz->add_flag("--stop-on-finding", c.stop_on_finding,
               "stop once the first failure bucket is seen (like SIGTERM: a reduction in progress stops)");
  fz->add_option("--guide", fuzz_opts->guide,
                 "coverage: keep programs that reach new target features as seeds and derive programs from them; "
                 "none: the blind stream (default coverage)")
      ->check(CLI::IsMember({"none", "coverage"}));
  fz->add_option("--opts", fuzz_opts->opts,
                 "for a target whose handshake lists optimization actions: random: most programs with loops carry a "
                 "drawn optimization sequence (the opts line), the rest none; heuristic: none, the target's own "
                 "optimizer decides; none: an empty opts line, no optimization (default random)")
      ->check(CLI::IsMember({"random", "heuristic", "none"}));
  fz->add_option("--seeds", c.seeds_dir,
                 "where seeds are kept and read from (default CORPUS/seeds, and the seed directories the target suggests)");
  fz->add_option("--known", fuzz_opts->known,
                 "a directory of known findings (default: the one the target suggests; none: no such check): a new "
                 "bucket that passes with a known culprit's switches off is counted under it, not reduced");
  fz->add_flag("--remarks", fuzz_opts->remarks,
               "the C compiler's optimization remarks as target features (gcc -fopt-info-optimized, clang -Rpass=.*)");
  fz->add_option("--target-rules", fuzz_opts->target_rules,
                 "favour seeds that reach target features near these: FILE:LINE,... or a summary (its never-fired ones)");
  fz->add_flag("--quiet,-q", fuzz_opts->quiet, "no progress line");
  add_policy_option(fz, fuzz_opts->policy, "; default: the one the target suggests, else the built-in one (`default`)");
  add_without_option(fz, fuzz_opts->without);
  fuzz_opts->flags.add_to(fz);

  return {{gen, [gen_opts] { return run_gen(*gen_opts); }},
          {pol, [policy_opts] { return run_policy(*policy_opts); }},
          {red, [reduce_opts] { return run_reduce(*reduce_opts); }},
          {fz, [fuzz_opts] { return run_fuzz(*fuzz_opts); }}};
}

}  // namespace uf::cli
