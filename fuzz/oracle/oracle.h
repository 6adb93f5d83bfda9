// The oracle: reference vs compiled, classified, with a signature for buckets.
//
// A program is a test only when the reference defines its result. The compiled path then either agrees
// (ok) or fails as one of: mismatch (some BUFFER element differs under docs/semantics.md's comparison rule),
// crash (a signal), timeout, compile-error, render-error.
//
// Signature: the class plus where the divergence starts. For a mismatch we find the first diverging
// *value*, not just the first diverging buffer element: the program is instrumented with probe stores
// of every live value (core/probe.h: inside loops once per iteration), run both ways, and the value that
// differs first in execution order names the bucket, e.g. `mismatch CAST f64>u32`, `mismatch MAX f16`,
// `mismatch RANGE i32` (a loop ran too few or too many times). A store to the wrong place with every
// value right is `mismatch STORE f32 address`. Crashes bucket by signal (`crash SIGFPE`), a render error
// by the bucket its plug-in names (`render-error KeyError at codegen/late/regalloc.py:118`), the other
// classes by class alone.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codegen/compiled_path.h"
#include "core/probe.h"
#include "interp/interp.h"

namespace uf {

// The oracle's verdict on a program the reference defines: the compiled path's own status
// (KernelStatus), or `mismatch` when it ran but some BUFFER differs from the reference.
enum class Verdict { ok, mismatch, crash, timeout, compile_error, render_error };

// "mismatch", or the compiled path's name of the status (status_name): "ok", "crash", "compile-error", ...
std::string verdict_name(Verdict v);

// The error of one result of an approximated op that differed from exec_alu's (fuzz/oracle/approx_verdict.h).
struct ApproxError {
  Op op;
  DType dtype;
  double ulps;  // from the correctly rounded result; inf for a wrong special value
  bool special_wrong = false;
};

struct Observation {
  Verdict verdict = Verdict::ok;
  int signal = 0;
  std::string message;               // compiler or renderer output, crash details
  std::string signature;             // bucket key; empty when ok
  std::map<int64_t, Values> expect;  // reference result (every BUFFER)
  std::map<int64_t, Values> got;     // compiled result, for the buffers that differ
  // Signed by the budget of an approximated op (`mismatch SIN f32 ulp 1e+01`); its probe signs it by an exact
  // value that diverged first (its operand computed wrong), if one did.
  bool approximate = false;
  std::vector<ApproxError> approx_ulps;  // each approximated result stored straight, judged whether it differed or not
};

// Whether an observed signature is the recorded one: equal, or the recorded one is a bare `render-error`
// (a file from before plug-ins named their render errors' buckets) and the observed a render error.
bool same_signature(const std::string& recorded, const std::string& observed);
// Whether a signature is that of a render that outlasted --render-timeout: every candidate of its
// reduction that keeps it costs a whole timeout.
bool is_render_timeout(const std::string& signature);

// An optimizer finding (docs/format.md, "Signatures"): the program fails under its non-empty `opts` line
// and the same program with an empty line (no optimization) passes. Its signature ends with this, so it
// is a bucket of its own and its reduction keeps a sequence that makes the difference.
inline constexpr std::string_view kUnderOpts = " under opts";
bool is_optimizer_finding(const std::string& signature);
// The signature without kUnderOpts.
std::string without_opts_mark(const std::string& signature);

// Compares one compiled outcome with the reference result (which must be defined); the elements stored
// straight from an op of `approx` (the target's handshake `approximate`) by their budget.
Observation compare(const Program& p, const RefResult& ref, const KernelOutcome& out, const std::vector<Op>& approx = {});

// Where a mismatch starts: the first node in linear order whose value differs (found with one extra
// compiled run of the probe program), and the signature it gives. `node` is null, and the signature
// the STORE form, when no probed value differs.
struct Divergence {
  std::string signature;
  const UOp* node = nullptr;
  // The reference values of node's operands that run inside loops, at the iteration where node diverged
  // (those recorded per iteration): what a slice needs, since such values have no single reference value.
  std::unordered_map<const UOp*, Scalar> loop_operands;
  // A vector node: the first lane that diverged and its reference value (a slice rebuilds that lane).
  int lane = -1;
  Scalar lane_value{};
};
Divergence find_divergence(const Program& p, const CompiledPathConfig& cfg);

// The probe program signatures use: every value (ProbeScope::every_value), loops indexed up to the
// renderer's bounds on their trip counts (core's int_bounds, from p's facts: facts = analyze(p), or
// those of p with other data lines).
Probe signature_probe(const Program& p, const Analysis& facts);
Probe signature_probe(const Program& p);

// What checking one program found: UNDEFINED under the reference (not a test, so nothing ran), or the
// observation of its compiled run (verdict ok or a failure with its signature).
struct Finding {
  std::optional<Undefined> undefined;  // the reference's reason; its node belongs to the checked program
  Observation observation;             // when defined
  // With several data sets per program: the data set `observation` is of (the first that failed, else
  // 0, the program's own data), and for one other than 0 the program with it as its data lines, which
  // is what a reproducer must carry.
  size_t input = 0;
  std::optional<Program> input_program;
  int64_t runs = 0;              // data sets whose kernel run was compared (none when it did not compile)
  int64_t undefined_inputs = 0;  // extra data sets skipped: the reference is UNDEFINED on them
  // The budget (render_stop_at) ended before the plug-in rendered its kernel: not checked, so neither
  // counted nor kept (its observation is a render_error that says nothing about the target).
  bool out_of_time = false;
  // What of the target its render reached (KernelOutcome::features): a protocol-2 plug-in's `used`.
  std::vector<std::string> features;
  double render_seconds = 0;  // KernelOutcome::render_seconds
  bool defined() const { return !undefined; }
  // The program that fails as `observation` says: `checked` (the program given to check) or its copy.
  const Program& failing(const Program& checked) const { return input_program ? *input_program : checked; }
};

// Initial contents of a program's BUFFERs by slot, as in Program::data.
using DataSet = std::map<int64_t, Values>;

// The oracle's one entry point: interpret every program, run the defined ones on the compiled path as
// one batch (one compiler call when all compile), compare, and sign each failure. With `probe`, a
// mismatch is signed by its first diverging value (one more batch, of all the probe programs); without,
// by the STORE form, for a caller that probes only the few candidates it needs (the reducer).
std::vector<Finding> check(const std::vector<const Program*>& batch, const CompiledPathConfig& cfg, bool probe = true);
// The same with the reference already run (refs[i] = interpret(*batch[i])): for a caller that must tell
// a program the interpreter rejects from a compiled path that cannot run, both UserErrors.
std::vector<Finding> check(const std::vector<const Program*>& batch, std::vector<RefResult> refs, const CompiledPathConfig& cfg,
                           bool probe = true);
// The same with the facts too (facts[i] = analyze(*batch[i]), refs[i] = interpret(*batch[i], facts[i])): for
// a caller that checks one batch several times (triage, once per compiler of its matrix).
std::vector<Finding> check(const std::vector<const Program*>& batch, const std::vector<Analysis>& facts,
                           std::vector<RefResult> refs, const CompiledPathConfig& cfg, bool probe = true);
// The same on several data sets per program (`uopfuzz fuzz --inputs K`): program i is checked on its own
// data and on each of extra_inputs[i], its one compiled kernel run once per data set. An extra data set
// that the reference finds UNDEFINED is skipped (`undefined_inputs`), not a failure; the first data set
// that fails gives the Finding. A program whose own data is UNDEFINED is not checked at all.
std::vector<Finding> check(const std::vector<const Program*>& batch, const std::vector<std::vector<DataSet>>& extra_inputs,
                           const CompiledPathConfig& cfg, bool probe = true);

}  // namespace uf
