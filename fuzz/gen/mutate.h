// Structure-aware mutations of a whole program, for inputs that are programs rather than choice
// sequences: libFuzzer's custom mutator (fuzz/libfuzzer/mutator.cpp) and a guided campaign's seeds that
// are `.uop` files (fuzz/campaign/guide.h). One table of mutations (mutate.cpp), each a row:
//  - data:     one element of a BUFFER's data set to an edge, small or random value of its dtype;
//  - fill:     a BUFFER's whole data line set to one such value;
//  - const:    a CONST's value likewise;
//  - op:       an ALU op replaced by another of the same arity and result rule (ADD -> FLOORDIV, CMPLT -> CMPNE);
//  - swap:     the two operands of a binary op exchanged;
//  - operand:  one operand of an ALU op replaced by an earlier node of its dtype (x+x, x%x, (x^y)^y);
//  - grow:     one operand x of an ALU op replaced by `x OP c`, a new binary op with a new constant;
//  - one-hot:  one operand x of an ALU op inside a loop replaced by `c != r ? 0 : x`, r one of its RANGEs;
//  - not:      one bool operand x replaced by `x != true` (both of a bool AND: `!x & !y`).
// A result reads and verifies (else the mutation counts as not applying); the reference may still find it
// UNDEFINED (a division by a new zero), which a campaign skips as any other.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/program.h"
#include "fuzz/gen/rng.h"

namespace uf {

// One mutation of `p` drawn from the table (up to a few tries); nullopt when none applied. The result has
// no expect, got or meta lines; `row`, when given, gets the name of the row that made it.
std::optional<Program> mutate_program(const Program& p, Rng& rng, std::string* row = nullptr);
// The table's row names, in order.
std::vector<std::string> mutation_names();

// A program's text without its expect, got and meta lines: what a mutant is made of.
std::string bare_text(Program p);
// The program of a mutant's text; nullopt when it does not read or verify.
std::optional<Program> read_mutant(std::string_view text);

// An edge, small or random value of dtype d, normalised (one NaN).
Scalar mutation_value(DType d, Rng& rng);

}  // namespace uf
