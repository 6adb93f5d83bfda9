// A C compiler's optimization remarks as target features (fuzz --remarks): which of its optimizations a
// program made it apply, as tinygrad's rewrite rules are for the tinygrad plug-in (docs/format.md).
//
// gcc reports them with -fopt-info-optimized, clang with -Rpass=.* (one line each on stderr:
// `k0.c:12:5: optimized: loop vectorized using 64 byte vectors`, `k0.c:1:54: remark: vectorized loop
// (vectorization width: 16, interleaved count: 4) [-Rpass=loop-vectorize]`). A feature is the compiler
// family, the pass (clang's -Rpass name; gcc names none) and the message with every number written N and
// every quoted name 'X', without the place: `gcc optimized: loop vectorized using N byte vectors`,
// `clang loop-vectorize: vectorized loop (vectorization width: N, interleaved count: N)`.
#pragma once
#include <string>
#include <vector>

#include "codegen/runtime/compiler.h"

namespace uf {

// The flag that makes compiler `id` print its remarks: clang's or gcc's (any other compiler is taken for
// a gcc).
std::string remark_flag(const CompilerId& id);

struct Remark {
  int file = 0;  // the source it is about: k0.c is 0 (the order compile_shared was given them)
  int line = 0;  // 1-based
  std::string feature;
};

// The remarks in a compiler's diagnostics; other lines (warnings, notes) are skipped.
std::vector<Remark> parse_remarks(const std::string& diagnostics);

// Where a compile's remarks are kept beside its cache entry (KEY.so -> KEY.remarks), so a cache hit has
// them too.
std::string remarks_path(const std::string& cache_entry);
// Writes a compile's diagnostics beside its cache entry (staged in `build_dir`, one rename: whole or
// absent) and returns them; UserError when they cannot be written.
std::string keep_remarks(const std::string& cache_entry, const std::string& diagnostics, const std::string& build_dir);

}  // namespace uf
