// Random programs, well-typed by construction and independent of fuzz/'s generator on purpose (they test
// core and codegen, not it).
#pragma once
#include <random>
#include <utility>
#include <vector>

#include "core/program.h"

namespace uf::testing {

// Roughly `size` ALU nodes of any op and dtype over a few BUFFERs, with an ALLOC written then read
// through AFTER, stores into output BUFFERs, and some dead nodes (core's property tests).
Program random_program(uint64_t seed, int size);

// 24 integer nodes (casts, NEG, WHERE, MULACC, the binary ops, divisions by small positive constants)
// over four loaded values of each integer dtype; every value node is stored, into BUFFER slot
// 100 + dtype (the renderer's bounds test).
struct RandomIntProgram {
  Program p;
  std::vector<const UOp*> observed;          // every value node, stored in order
  std::vector<std::pair<DType, size_t>> at;  // where: (dtype of the output buffer, element)
};
RandomIntProgram random_int_program(std::mt19937_64& rng);

}  // namespace uf::testing
