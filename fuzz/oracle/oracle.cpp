// Reference vs compiled: comparison, probes, signatures.
#include "fuzz/oracle/oracle.h"

#include <csignal>
#include <cstring>
#include <utility>

#include "core/error.h"

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

// The first probed value that differs, or an empty Divergence.
Divergence first_divergence(const Probe& probe, const RefResult& ref, const KernelOutcome& out) {
  if (ref.undefined || out.status != KernelStatus::ok) return {};
  for (const auto& [node, at] : probe.where) {
    const auto r = ref.buffers.find(at.first);
    const auto g = out.buffers.find(at.first);
    if (r == ref.buffers.end() || g == out.buffers.end()) continue;
    if (!same_value(node->dtype, r->second[at.second], g->second[at.second])) return {"mismatch " + describe(node), node};
  }
  return {};
}

// All the probes of a batch's mismatches in one compiled run; a mismatch no probe explains keeps its
// STORE signature.
void sign_mismatches(const std::vector<const Program*>& batch, std::vector<Finding>& found, const CompiledPathConfig& cfg) {
  std::vector<size_t> mismatching;
  for (size_t i = 0; i < found.size(); ++i)
    if (found[i].defined() && found[i].observation.verdict == Verdict::mismatch) mismatching.push_back(i);
  if (mismatching.empty()) return;
  std::vector<Probe> probes;
  std::vector<const Program*> probe_programs;
  probes.reserve(mismatching.size());
  for (size_t i : mismatching) probes.push_back(instrument(*batch[i]));
  for (const Probe& pr : probes) probe_programs.push_back(&pr.program);
  const auto probe_outs = run_compiled(probe_programs, cfg);
  for (size_t k = 0; k < mismatching.size(); ++k) {
    const Divergence d = first_divergence(probes[k], interpret(probes[k].program), probe_outs[k]);
    if (d.node) found[mismatching[k]].observation.signature = d.signature;
  }
}

}  // namespace

std::string verdict_name(Verdict v) {
  for (const auto& [status, verdict] : kStatusVerdicts)
    if (verdict == v) return status_name(status);
  return "mismatch";
}

Observation compare(const Program& p, const RefResult& ref, const KernelOutcome& out) {
  Observation o;
  o.verdict = verdict_of(out.status);
  o.signal = out.signal;
  o.message = out.message;
  o.expect = ref.buffers;
  switch (out.status) {
    case KernelStatus::ok: break;
    case KernelStatus::crash: o.signature = "crash " + signal_name(out.signal); return o;
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
  if (o.verdict == Verdict::mismatch) o.signature = store_signature(p, o);
  return o;
}

Divergence find_divergence(const Program& p, const CompiledPathConfig& cfg) {
  const Probe probe = instrument(p);
  const auto outs = run_compiled({&probe.program}, cfg);
  Divergence d = first_divergence(probe, interpret(probe.program), outs.at(0));
  if (d.node) return d;
  const RefResult ref = interpret(p);
  const auto again = run_compiled({&p}, cfg);
  return {compare(p, ref, again.at(0)).signature, nullptr};
}

std::vector<Finding> check(const std::vector<const Program*>& batch, const CompiledPathConfig& cfg, bool probe) {
  std::vector<RefResult> refs;
  refs.reserve(batch.size());
  for (const Program* p : batch) refs.push_back(interpret(*p));
  return check(batch, std::move(refs), cfg, probe);
}

std::vector<Finding> check(const std::vector<const Program*>& batch, std::vector<RefResult> refs,
                           const CompiledPathConfig& cfg, bool probe) {
  UOPFUZZ_CHECK(refs.size() == batch.size());
  std::vector<Finding> found(batch.size());
  std::vector<const Program*> runnable;
  std::vector<size_t> index;
  for (size_t i = 0; i < batch.size(); ++i) {
    found[i].undefined = refs[i].undefined;
    if (found[i].defined()) { runnable.push_back(batch[i]); index.push_back(i); }
  }
  if (runnable.empty()) return found;
  const auto outs = run_compiled(runnable, cfg);
  for (size_t k = 0; k < runnable.size(); ++k) found[index[k]].observation = compare(*runnable[k], refs[index[k]], outs[k]);
  if (probe) sign_mismatches(batch, found, cfg);
  return found;
}

}  // namespace uf
