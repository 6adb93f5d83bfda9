// The random program generator (wasm-smith / YARPGen style).
//
// generate() is a pure function of (seed, policy, kGeneratorVersion): one seeded Rng drives every
// choice, so `uopfuzz gen --seed S` rebuilds a campaign's program exactly. Programs are valid by
// construction: every node is well typed, verify() passes (constant indices in bounds; conflicting
// accesses ordered through AFTER or a data path), and the reference result is defined except by rare
// accident (float-to-int casts, BITCASTs of floats, signed shift amounts and computed indices are all
// guarded, scratch memory is written before it is read).
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "core/program.h"
#include "fuzz/gen/policy.h"
#include "fuzz/gen/rng.h"

namespace uf {

// Bump whenever the same seed may produce a different program (then old seeds no longer replay).
constexpr int kGeneratorVersion = 9;

// A program's random choices, Zest's parametric generator: the raw 64-bit draws of its Rng (rng.h), then
// `seed`'s own stream once they run out. generate() of a Choices is as pure as of a seed (a seed alone is
// Choices{seed, {}}), and since every value of every draw is a valid choice, a mutated sequence is
// another valid program: what a guided campaign derives new programs from (fuzz/campaign/guide.h).
struct Choices {
  uint64_t seed = 0;
  std::vector<uint64_t> draws;
};

// With probability pol.p_opts, an optimization sequence for `p` (its `opts` line), each step on a RANGE its
// action works on (fuzz/gen/opts.cpp); `p` keeps its line when none can be drawn. What generate() ends
// with, and what a mutant of a `.uop` seed gets (fuzz/campaign/guide.cpp).
void draw_opts(Program& p, const GenPolicy& pol, Rng& rng);

// `p` with each op of `approx` (a target's handshake `approximate`) on floats that is not a stored leaf
// (its value used by anything but a STORE into a BUFFER that no AFTER waits for, whose element nothing reads
// again; an fp8 or vector one) made exact: NEG for a unary op, MUL for POW; one computed outside loops is
// also stored into a one-element output BUFFER of its own (up to 32 BUFFERs in all), so it stays under
// test. The oracle judges an approximated result by its budget only where it is stored straight; a campaign
// applies this to every program it checks (fuzz/gen/approx_leaves.cpp). False when the result no longer
// verifies (an index computed from a replaced value has another range): the caller takes another.
bool keep_approximated_as_leaves(Program& p, const std::vector<Op>& approx);

// The program of `choices`; with `record`, every draw it made (its full choice sequence) is appended
// there. Meta as generate(seed) writes it, the seed being choices.seed.
Program generate(const Choices& choices, const GenPolicy& base, std::vector<uint64_t>* record = nullptr);
// The same data sets as input_data(p, seed, ...) below, for the program of `choices`.
std::map<int64_t, Values> input_data(const Program& p, const Choices& choices, uint64_t input, const GenPolicy& base = {});

// The program of `seed`. Meta: `seed = <seed>`, `generator = <kGeneratorVersion>`. Every BUFFER has
// data. The policy is the campaign's base; each program draws its own swarm restriction from it.
Program generate(uint64_t seed, const GenPolicy& base = {});

// Fresh contents for every BUFFER of `p`, the program of `seed` under `base`: input data set `input`
// (>= 1; set 0 is the program's own `data` lines) of `uopfuzz fuzz --inputs K`. Drawn from the same
// value policy as generated data (the program's own swarm draw of data_value_weight) by an Rng seeded
// from (seed, input) alone, so a finding's data set is rebuilt from its meta `seed` and `input`.
std::map<int64_t, Values> input_data(const Program& p, uint64_t seed, uint64_t input, const GenPolicy& base = {});

// How many of `inputs` data sets (`--inputs K`, set 0 included) `p` runs on: all of them, unless its BUFFERs
// hold so many elements that K copies would pass kDataSetElements (a workload-sized nest, p_big_nest: the
// reference runs every iteration of every set, and drawing the data costs as much); then as many as fit, at
// least the program's own.
inline constexpr int64_t kDataSetElements = int64_t{1} << 20;
int data_sets_for(const Program& p, int inputs);

// `count` data sets other than p's own, to re-check a finding on (a culprit, fuzz/oracle/culprit.h):
// input_data 1..count of its meta `seed` (1 without one), as `fuzz --inputs` would draw them.
std::vector<std::map<int64_t, Values>> other_data_sets(const Program& p, int count, const GenPolicy& base = {});

// The seed of program `index` of worker `worker` in the campaign `campaign_seed`: well mixed, so
// neighbouring indices and workers give unrelated programs, and a campaign replays per (seed, worker).
uint64_t program_seed(uint64_t campaign_seed, uint64_t worker, uint64_t index);

}  // namespace uf
