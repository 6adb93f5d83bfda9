// Reference vs compiled: comparison, probes, signatures.
#include "fuzz/oracle/oracle.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "codegen/plugin.h"
#include "codegen/runtime/checked_call.h"
#include "core/error.h"
#include "fuzz/oracle/approx_verdict.h"
#include "interp/approx.h"

namespace uf {

namespace {

// Every verdict but `mismatch` is a status of the compiled path: one table for both directions.
constexpr std::pair<KernelStatus, Verdict> kStatusVerdicts[] = {
    {KernelStatus::ok, Verdict::ok},
    {KernelStatus::crash, Verdict::crash},
    {KernelStatus::timeout, Verdict::timeout},
    {KernelStatus::compile_error, Verdict::compile_error},
    {KernelStatus::render_error, Verdict::render_error},
};

Verdict verdict_of(KernelStatus s) {
  for (const auto& [status, verdict] : kStatusVerdicts)
    if (status == s) return verdict;
  UOPFUZZ_CHECK(false);
  return Verdict::ok;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal " + std::to_string(sig);
  }
}

// `ADD f16`, `CAST f64>u32`, `CMPLT f32`, `LOAD i8`: the op and the dtypes that select its rule.
std::string describe(const UOp* u) {
  const UOp* operand = u->op == Op::WHERE ? u->src[1] : u->src.empty() ? u : u->src[0];
  std::string s = std::string(name(u->op)) + " " + name(operand->dtype);
  if ((u->op == Op::CAST || u->op == Op::BITCAST) && operand->dtype != u->dtype) s += std::string(">") + name(u->dtype);
  return s;
}

bool differs(DType d, const Values& a, const Values& b) {
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_value(d, a[i], b[i])) return true;
  return false;
}

std::string store_signature(const Program& p, const Observation& o) {
  for (const auto& [slot, vals] : o.got) return "mismatch STORE " + std::string(name(p.buffer(slot)->dtype));
  return "mismatch";
}

// The reference values of u's in-loop operands at `time` (probe_time of u's diverging element), for
// those whose every enclosing loop's iteration is both known at `time` and recorded by their probe.
std::unordered_map<const UOp*, Scalar> operands_at(const Probe& probe, const RefResult& ref, const UOp* u,
                                                   const std::vector<int64_t>& time) {
  std::unordered_map<const UOp*, Scalar> values;
  for (const UOp* operand : u->src) {
    const auto point =
        std::find_if(probe.points.begin(), probe.points.end(), [&](const ProbePoint& at) { return at.node == operand; });
    if (point == probe.points.end() || point->loops.empty()) continue;
    int64_t element = point->index;
    bool known = true;
    for (size_t l = 0; l < point->loops.size() && known; ++l) {
      // The operand's loops enclose u, so they are the first levels of u's time.
      known = 2 * l + 1 < time.size() && time[2 * l] == point->loops[l].position && point->loops[l].stride &&
              time[2 * l + 1] != std::numeric_limits<int64_t>::max();
      if (known) element += time[2 * l + 1] * point->loops[l].stride;
    }
    const auto buffer = ref.buffers.find(point->slot);
    if (known && buffer != ref.buffers.end() && static_cast<size_t>(element) < buffer->second.size())
      values[operand] = buffer->second[static_cast<size_t>(element)];
  }
  return values;
}

// The probed value that diverges first in execution order (probe_time), or an empty Divergence.
// An approximated value (approx) is judged by its budget where it is stored, never here.
Divergence first_divergence(const Probe& probe, const RefResult& ref, const KernelOutcome& out, const std::vector<Op>& approx) {
  if (ref.undefined || out.status != KernelStatus::ok) return {};
  Divergence first;
  std::vector<int64_t> first_time;
  for (const ProbePoint& point : probe.points) {
    if (is_approximated(point.node, approx)) continue;
    const auto r = ref.buffers.find(point.slot);
    const auto g = out.buffers.find(point.slot);
    if (r == ref.buffers.end() || g == out.buffers.end()) continue;
    for (int64_t e = point.index; e < point.index + point.count; ++e) {
      const auto i = static_cast<size_t>(e);
      if (i >= r->second.size() || i >= g->second.size() || same_value(point.node->dtype, r->second[i], g->second[i])) continue;
      std::vector<int64_t> time = probe_time(point, e);
      if (!first.node || time < first_time) {
        first = {"mismatch " + describe(point.node), point.node, {}, point.lane, r->second[i]};
        first_time = std::move(time);
      }
      break;  // later elements of one point are later iterations
    }
  }
  if (first.node) first.loop_operands = operands_at(probe, ref, first.node, first_time);
  return first;
}

// A mismatch that no probed value explains: every value stored was right, so what went wrong is where
// (or whether) a store wrote. That needs every STORE's value probed: a vector STORE's is not.
std::string unexplained_signature(const Program& p, const Analysis& facts, const Probe& probe, const RefResult& probe_ref,
                                  const KernelOutcome& probe_out, const std::string& fallback, const std::vector<Op>& approx) {
  if (probe_ref.undefined || probe_out.status != KernelStatus::ok) return fallback;
  Observation again = compare(probe.program, probe_ref, probe_out, approx);
  std::erase_if(again.got, [&](const auto& slot_values) { return !p.buffer(slot_values.first); });  // p's own
  if (again.got.empty()) return fallback;  // the probe run did not reproduce it
  for (const UOp* u : facts.order)
    if (u->op == Op::STORE && u->src[1]->is_vector()) return fallback;
  return store_signature(p, again) + " address";
}
// Probe programs run both ways, in one compiled batch; each is analyzed once, for both.
struct ProbeRuns {
  std::vector<RefResult> refs;
  std::vector<KernelOutcome> outs;
};

ProbeRuns run_probes(const std::vector<Probe>& probes, const CompiledPathConfig& cfg) {
  std::vector<Analysis> facts;
  facts.reserve(probes.size());
  std::vector<std::vector<const Program*>> runs;
  std::vector<const Analysis*> facts_of;
  for (const Probe& pr : probes) {
    facts.push_back(analyze(pr.program));
    runs.push_back({&pr.program});
    facts_of.push_back(&facts.back());
  }
  ProbeRuns r;
  for (std::vector<KernelOutcome>& o : run_compiled_on_each(runs, cfg, facts_of)) r.outs.push_back(std::move(o[0]));
  for (size_t k = 0; k < probes.size(); ++k) r.refs.push_back(interpret(probes[k].program, facts[k]));
  return r;
}

// All the probes of a batch's mismatches in one compiled run; a mismatch no probe explains keeps its
// STORE signature. A failing copy with other data shares its program's facts.
void sign_mismatches(const std::vector<const Program*>& batch, const std::vector<Analysis>& facts, std::vector<Finding>& found,
                     const CompiledPathConfig& cfg) {
  std::vector<size_t> mismatching;
  for (size_t i = 0; i < found.size(); ++i)
    if (found[i].defined() && found[i].observation.verdict == Verdict::mismatch) mismatching.push_back(i);
  if (mismatching.empty()) return;
  std::vector<Probe> probes;
  probes.reserve(mismatching.size());
  for (size_t i : mismatching) probes.push_back(signature_probe(found[i].failing(*batch[i]), facts[i]));
  const ProbeRuns run = run_probes(probes, cfg);
  const std::vector<Op>& approx = cfg.renderer_description.approximate;
  for (size_t k = 0; k < mismatching.size(); ++k) {
    const size_t i = mismatching[k];
    Observation& o = found[i].observation;
    const Divergence d = first_divergence(probes[k], run.refs[k], run.outs[k], approx);
    // An approximated result over its budget keeps its own signature unless an exact value under it diverged
    // first (the target computed its operand wrong: that op's bug, seen through the approximated one).
    if (d.node) o.signature = d.signature, o.approximate = false;
    else if (!o.approximate)
      o.signature = unexplained_signature(found[i].failing(*batch[i]), facts[i], probes[k], run.refs[k], run.outs[k], o.signature, approx);
  }
}

// The reference on every program, each analyzed once (facts[i] of batch[i]) for everything check does.
std::vector<RefResult> interpret_all(const std::vector<const Program*>& batch, std::vector<Analysis>& facts) {
  std::vector<RefResult> refs;
  refs.reserve(batch.size());
  facts.reserve(batch.size());
  for (const Program* p : batch) {
    facts.push_back(analyze(*p));
    refs.push_back(interpret(*p, facts.back()));
  }
  return refs;
}

// The facts of the programs a caller interpreted itself (an UNDEFINED one's are not needed).
std::vector<Analysis> analyze_defined(const std::vector<const Program*>& batch, const std::vector<RefResult>& refs) {
  UOPFUZZ_CHECK(refs.size() == batch.size());
  std::vector<Analysis> facts(batch.size());
  for (size_t i = 0; i < batch.size(); ++i)
    if (!refs[i].undefined) facts[i] = analyze(*batch[i]);
  return facts;
}

// One program's data sets that run: the program itself, then its copies with each extra data set the
// reference defines.
struct DataSetRuns {
  std::vector<Program> copies;  // reserved up front: `runs` points into it
  std::vector<const Program*> runs;
  std::vector<RefResult> refs;  // refs[k]: the reference on runs[k]
  std::vector<size_t> input;    // runs[k] is data set input[k] (0: the program's own data)
};

DataSetRuns data_set_runs(const Program& p, const Analysis& facts, RefResult own, const std::vector<DataSet>& extra, Finding& f) {
  DataSetRuns d;
  d.copies.reserve(extra.size());
  d.runs.push_back(&p);
  d.refs.push_back(std::move(own));
  d.input.push_back(0);
  for (size_t k = 0; k < extra.size(); ++k) {
    Program copy = p;
    copy.data = extra[k];
    copy.expect.clear();
    copy.got.clear();
    RefResult ref = interpret(copy, facts);  // same graph, other data: same facts
    if (ref.undefined) {
      ++f.undefined_inputs;
      continue;
    }
    d.copies.push_back(std::move(copy));
    d.runs.push_back(&d.copies.back());
    d.refs.push_back(std::move(ref));
    d.input.push_back(k + 1);
  }
  return d;
}

// Compares every data set's outcome with its reference; the first failure (else data set 0) is f's.
void judge(DataSetRuns& d, const std::vector<KernelOutcome>& outs, Finding& f, const std::vector<Op>& approx) {
  std::optional<size_t> failed;
  f.out_of_time = outs[0].out_of_time;  // a render is every data set's
  f.features = outs[0].features;
  f.render_seconds = outs[0].render_seconds;
  for (size_t k = 0; k < d.runs.size(); ++k) {
    const KernelStatus s = outs[k].status;
    if (s != KernelStatus::compile_error && s != KernelStatus::render_error) ++f.runs;
    if (failed) continue;
    Observation o = compare(*d.runs[k], d.refs[k], outs[k], approx);
    if (o.verdict == Verdict::ok && k > 0) continue;
    f.observation = std::move(o);
    if (f.observation.verdict != Verdict::ok) failed = k;
  }
  if (failed && *failed > 0) {
    f.input = d.input[*failed];
    f.input_program = std::move(d.copies[*failed - 1]);
  }
}

// A failure under a non-empty opts line is checked once more with an empty line (no optimization, where no
// line would be the target's heuristic): when that passes, the optimizer is what fails, and the signature
// says so. A mismatch not yet signed (no probe: the reducer's first pass over a batch) waits for its probe.
void mark_optimizer_findings(const std::vector<const Program*>& batch, std::vector<Finding>& found, const CompiledPathConfig& cfg,
                             bool probe) {
  std::vector<Program> plain;
  std::vector<size_t> of;
  plain.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const Finding& f = found[i];
    if (!f.defined() || f.out_of_time || f.observation.verdict == Verdict::ok) continue;
    if (!probe && f.observation.verdict == Verdict::mismatch) continue;
    const Program& p = f.failing(*batch[i]);
    if (!p.opts || p.opts->empty()) continue;
    Program q = p;
    q.opts = OptSequence{};
    q.expect.clear();
    q.got.clear();
    plain.push_back(std::move(q));
    of.push_back(i);
  }
  if (plain.empty()) return;
  std::vector<const Program*> runs;
  for (const Program& q : plain) runs.push_back(&q);
  const std::vector<Finding> without = check(runs, cfg, /*probe=*/false);
  for (size_t k = 0; k < of.size(); ++k)
    if (without[k].defined() && !without[k].out_of_time && without[k].observation.verdict == Verdict::ok)
      found[of[k]].observation.signature += kUnderOpts;
}

// check's one body: every defined program on its own data and on its extra data sets (none when
// `extra` is empty), one compiled kernel per program.
std::vector<Finding> check_on_inputs(const std::vector<const Program*>& batch, const std::vector<Analysis>& facts,
                                     std::vector<RefResult> refs, const std::vector<std::vector<DataSet>>& extra,
                                     const CompiledPathConfig& cfg, bool probe) {
  UOPFUZZ_CHECK(refs.size() == batch.size() && facts.size() == batch.size());
  static const std::vector<DataSet> kNone;
  std::vector<Finding> found(batch.size());
  std::vector<DataSetRuns> programs;
  std::vector<size_t> index;
  std::vector<const Analysis*> facts_of;  // by entry of `programs`
  for (size_t i = 0; i < batch.size(); ++i) {
    found[i].undefined = refs[i].undefined;
    if (!found[i].defined()) continue;
    programs.push_back(data_set_runs(*batch[i], facts[i], std::move(refs[i]), extra.empty() ? kNone : extra[i], found[i]));
    index.push_back(i);
    facts_of.push_back(&facts[i]);
  }
  if (programs.empty()) return found;
  std::vector<std::vector<const Program*>> runs;
  for (const DataSetRuns& d : programs) runs.push_back(d.runs);
  const auto outs = run_compiled_on_each(runs, cfg, facts_of);
  for (size_t k = 0; k < programs.size(); ++k) judge(programs[k], outs[k], found[index[k]], cfg.renderer_description.approximate);
  if (probe) sign_mismatches(batch, facts, found, cfg);
  mark_optimizer_findings(batch, found, cfg, probe);
  return found;
}

}  // namespace

Probe signature_probe(const Program& p, const Analysis& facts) { return instrument(p, facts, ProbeScope::every_value); }
Probe signature_probe(const Program& p) { return signature_probe(p, analyze(p)); }

std::string verdict_name(Verdict v) {
  for (const auto& [status, verdict] : kStatusVerdicts)
    if (verdict == v) return status_name(status);
  return "mismatch";
}

Observation compare(const Program& p, const RefResult& ref, const KernelOutcome& out, const std::vector<Op>& approx) {
  Observation o;
  o.verdict = verdict_of(out.status);
  o.signal = out.signal;
  o.message = out.message;
  o.expect = ref.buffers;
  switch (out.status) {
    case KernelStatus::ok: break;
    case KernelStatus::crash:  // signal 0: the kernel exited, or broke the ABI (checked_call.h)
      o.signature = "crash " + (out.signal ? signal_name(out.signal) : out.message.rfind(kBrokeAbi, 0) == 0 ? "ABI" : "exit");
      return o;
    case KernelStatus::render_error:
      o.signature = verdict_name(o.verdict) + (out.bucket.empty() ? "" : " " + out.bucket);
      return o;
    default: o.signature = verdict_name(o.verdict); return o;
  }
  for (const auto& [slot, want] : ref.buffers) {
    const auto it = out.buffers.find(slot);
    const Values empty;
    const Values& got = it == out.buffers.end() ? empty : it->second;
    if (differs(p.buffer(slot)->dtype, want, got)) {
      o.verdict = Verdict::mismatch;
      o.got[slot] = got;
    }
  }
  judge_approximate(p, ref, out.buffers, approx, o);
  if (o.verdict == Verdict::mismatch && !o.approximate) o.signature = store_signature(p, o);
  return o;
}

Divergence find_divergence(const Program& p, const CompiledPathConfig& cfg) {
  const Analysis facts = analyze(p);
  const std::vector<Probe> probe{signature_probe(p, facts)};
  const ProbeRuns run = run_probes(probe, cfg);
  const std::vector<Op>& approx = cfg.renderer_description.approximate;
  Divergence d = first_divergence(probe[0], run.refs[0], run.outs[0], approx);
  if (d.node) return d;
  const RefResult ref = interpret(p, facts);
  const auto again = run_compiled_on_each({{&p}}, cfg, {&facts});
  const Observation plain = compare(p, ref, again.at(0).at(0), approx);
  Divergence none;  // no node to blame: the signature alone (an approximated result's own, over its budget)
  none.signature = plain.signature.rfind("mismatch", 0) != 0 || plain.approximate
                       ? plain.signature
                       : unexplained_signature(p, facts, probe[0], run.refs[0], run.outs[0], plain.signature, approx);
  return none;
}

std::vector<Finding> check(const std::vector<const Program*>& batch, const CompiledPathConfig& cfg, bool probe) {
  std::vector<Analysis> facts;
  std::vector<RefResult> refs = interpret_all(batch, facts);
  return check_on_inputs(batch, facts, std::move(refs), {}, cfg, probe);
}

std::vector<Finding> check(const std::vector<const Program*>& batch, std::vector<RefResult> refs, const CompiledPathConfig& cfg,
                           bool probe) {
  const std::vector<Analysis> facts = analyze_defined(batch, refs);
  return check_on_inputs(batch, facts, std::move(refs), {}, cfg, probe);
}

std::vector<Finding> check(const std::vector<const Program*>& batch, const std::vector<Analysis>& facts,
                           std::vector<RefResult> refs, const CompiledPathConfig& cfg, bool probe) {
  return check_on_inputs(batch, facts, std::move(refs), {}, cfg, probe);
}

std::vector<Finding> check(const std::vector<const Program*>& batch, const std::vector<std::vector<DataSet>>& extra_inputs,
                           const CompiledPathConfig& cfg, bool probe) {
  UOPFUZZ_CHECK(extra_inputs.size() == batch.size());
  std::vector<Analysis> facts;
  std::vector<RefResult> refs = interpret_all(batch, facts);
  return check_on_inputs(batch, facts, std::move(refs), extra_inputs, cfg, probe);
}

}  // namespace uf
