// The compile step of the compiled path: one compiler call for a batch's units, bisected on failure so
// only the units that fail on their own are compile errors; never past the budget.
#pragma once
#include <string>
#include <vector>

#include "codegen/compiled_path_types.h"

namespace uf {

struct Unit {
  size_t index;        // position in the batch
  std::string name;    // its kernel's symbol
  std::string source;  // built-in: the function alone; plug-in: a whole translation unit
};

// One shared object and the units it holds.
struct Group {
  std::string so_path;
  std::vector<const Unit*> units;
};

// Compiles `units` in as few compiler calls as they allow: the groups that compiled; every data set
// out[unit.index] of a unit that did not is a compile error (out_of_time when the budget cut it).
std::vector<Group> compile_units(const std::vector<const Unit*>& units, const CompiledPathConfig& cfg,
                                 std::vector<std::vector<KernelOutcome>>& out);

}  // namespace uf
