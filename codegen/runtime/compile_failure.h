// Why a compiler call failed: the machine (a full disk, no memory, a broken installation: a setup problem,
// never a finding) or the code (the compiler rejected it, or crashed on it: a compile-error finding).
#pragma once
#include <string>
#include <vector>

#include "codegen/runtime/process.h"

namespace uf {

// Why a failed compiler call is a problem of the environment rather than of the sources, or "" when it
// is a genuine compile error (the compiler ran to the end and rejected the code, or crashed on it). `dirs`:
// where its temporary files and output go (a full one is the environment's fault whatever it says).
std::string environment_failure(const ProcessResult& r, const std::vector<std::string>& dirs);

}  // namespace uf
