// The differential target's custom mutator: inputs are .uop programs, and every mutation yields a
// program that reads and verifies, so libFuzzer spends its executions on comparisons, not on
// rejected text.
//
// Mutations (the seed libFuzzer passes drives every choice, so a run with -seed=N is repeatable):
//  - generate: a fresh small program from the generator (generate(seed, policy)), with a random
//    size and swarm policy; also the fallback when the input does not read;
//  - the program mutations of fuzz/gen/mutate.h (data, fill, const, op, swap);
//  - bytes: libFuzzer's own byte mutation (kept only when the result still reads and verifies).
// Expect, got and meta lines are dropped: the target compares with the reference, not with them.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "fuzz/gen/generator.h"
#include "fuzz/gen/mutate.h"
#include "fuzz/gen/rng.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using uf::Program;
using uf::Rng;

std::string generate_small(Rng& r) {
  uf::GenPolicy pol;
  pol.min_steps = 1;
  pol.max_steps = 2 + static_cast<int>(r.below(30));
  pol.max_nodes = 600;
  pol.max_long_len = 16;
  pol.min_chain_len = 2;
  pol.max_chain_len = 16;
  Program p = uf::generate(r.next(), pol);
  return uf::bare_text(std::move(p));
}

// One attempt; "" when the mutation does not apply or its result does not read and verify.
std::string try_mutation(const uint8_t* data, size_t size, size_t max_size, const std::optional<Program>& p, Rng& r) {
  const uint64_t pick = p ? r.below(100) : 0;
  if (pick < 12) return generate_small(r);  // valid by construction
  if (pick < 90) {  // the program mutations' table (fuzz/gen/mutate.h)
    const std::optional<Program> q = uf::mutate_program(*p, r);
    return q ? uf::bare_text(*q) : "";
  }
  std::vector<uint8_t> buf(data, data + size);
  buf.resize(max_size);
  buf.resize(LLVMFuzzerMutate(buf.data(), size, max_size));
  const auto q = uf::read_mutant(std::string(buf.begin(), buf.end()));
  return q ? uf::bare_text(*q) : "";
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng r(seed);
  const auto p = uf::read_mutant(std::string_view(reinterpret_cast<const char*>(data), size));
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string out = try_mutation(data, size, max_size, attempt < 12 ? p : std::nullopt, r);
    if (!out.empty() && out.size() <= max_size) {
      std::memcpy(data, out.data(), out.size());
      return out.size();
    }
  }
  return size;  // nothing fit: unchanged
}
