// The compiled path as the fuzzer sees it: render, compile (one cached compiler call per batch), run
// each program on its own data (or on several data sets) in the sandbox. Both renderers (the built-in
// exact one and a `--renderer-cmd` plug-in) go through the same entry point.
//
//   uf::CompiledPathConfig cfg;                 // gcc, exact default flags, built-in renderer
//   auto out = uf::run_compiled({&p1, &p2}, cfg);
//   if (out[0].status == uf::KernelStatus::ok) use(out[0].buffers);
//
// Per program, the status is one of
//   ok             the kernel ran; `buffers` holds the final contents of every BUFFER, by slot;
//   render_error   the renderer failed (plug-in: non-zero exit, timeout, too much output; `message`
//                  has its stderr);
//   compile_error  the C did not compile (or did not define the function); `message` has the
//                  compiler's stderr and the numbered source. In a batch, a failing compile is
//                  bisected so only the programs that fail on their own get this status;
//   crash          the kernel killed its process (`signal`, e.g. SIGSEGV, SIGFPE; 0 for an exit);
//   timeout        the kernel ran longer than timeout_s.
// Whether the buffers are right is not known here: comparing with the reference is the oracle's job
// (fuzz/oracle), and so is its `mismatch` verdict.
//
// Setup problems (the compiler missing, an unusable cache dir, a malformed renderer command line, a
// data line that does not fit its BUFFER) throw UserError instead: they are not findings.
#pragma once
#include <string>
#include <vector>

#include "codegen/compiled_path_types.h"
#include "core/program.h"

namespace uf {

// The plug-in server's mean time per render so far (0 without a server or a reply yet): where it is
// long against a compiler call, a batch waits mostly for renders, so the reducer checks small batches.
double mean_render_seconds(const CompiledPathConfig& cfg);

std::vector<KernelOutcome> run_compiled(const std::vector<const Program*>& batch, const CompiledPathConfig& cfg);
KernelOutcome run_compiled(const Program& p, const CompiledPathConfig& cfg);
// One kernel on several data sets: runs[i] lists one program (one graph, SINK and BUFFERs) with
// different data lines. Each kernel is rendered and compiled once, from runs[i][0], and called once
// per data set, all in the batch's one sandbox child (compiling costs far more than a run).
// out[i][k] is the outcome of runs[i][k]; a render or compile error is every data set's. `facts`, if
// given, holds analyze(*runs[i][0]) for each i: the built-in renderer then does not analyze again.
std::vector<std::vector<KernelOutcome>> run_compiled_on_each(const std::vector<std::vector<const Program*>>& runs,
                                                             const CompiledPathConfig& cfg,
                                                             const std::vector<const Analysis*>& facts = {});

// "ok", "crash", "timeout", "compile-error", "render-error".
std::string status_name(KernelStatus s);

// The C translation unit the compiled path would compile for `p` alone (what `uopfuzz render` prints):
// render_c(p, fn_name) for the built-in renderer, the plug-in's output otherwise. Throws UserError
// with the plug-in's message when it fails.
std::string render_source(const Program& p, const std::string& fn_name, const CompiledPathConfig& cfg);

}  // namespace uf
