// Choice sequences (generator.h Choices, Zest's parametric generators): a seed alone is an empty
// sequence, a recorded sequence replays its program whatever the tail seed, and any sequence of 64-bit
// values, a mutated one included, is a valid program.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/text.h"
#include "fuzz/gen/generator.h"

namespace uf::testing {
namespace {

TEST(Choices, ASeedAloneIsTheBlindStream) {
  for (uint64_t s = 0; s < 100; ++s) {
    std::vector<uint64_t> draws;
    ASSERT_EQ(print_program(generate(Choices{s, {}}, GenPolicy{}, &draws)), print_program(generate(s))) << "seed " << s;
    EXPECT_GT(draws.size(), 10u) << "seed " << s;
  }
}

TEST(Choices, ARecordedSequenceReplaysItsProgramWithAnyTailSeed) {
  for (uint64_t s = 0; s < 100; ++s) {
    std::vector<uint64_t> draws;
    Program first = generate(Choices{s, {}}, GenPolicy{}, &draws);
    Program again = generate(Choices{s + 12345, draws}, GenPolicy{});
    first.meta.clear();
    again.meta.clear();
    ASSERT_EQ(print_program(first), print_program(again)) << "seed " << s;
    // and its other data sets too (those draw from the tail seed): the swarm policy they use is replayed
    first.data = input_data(first, Choices{s, {}}, 3);
    again.data = input_data(again, Choices{s, draws}, 3);
    EXPECT_EQ(print_program(first), print_program(again)) << "seed " << s;
  }
}

TEST(Choices, ChangingOneDrawChangesTheProgramButNotItsValidity) {
  size_t changed = 0;
  for (uint64_t s = 0; s < 100; ++s) {
    std::vector<uint64_t> draws;
    const std::string before = print_program(generate(Choices{s, {}}, GenPolicy{}, &draws));
    draws[draws.size() / 2] ^= 0x5555555555555555ull;
    const Program p = generate(Choices{s, draws}, GenPolicy{});
    verify(p);
    changed += print_program(p) != before;
  }
  EXPECT_GE(changed, 50u);  // most draws matter
}

// Any values at all, at any length, make a valid program: what lets a guided campaign mutate them blindly.
RC_GTEST_PROP(Choices, AnySequenceIsAValidProgram, (uint64_t seed, std::vector<uint64_t> draws)) {
  const Program p = generate(Choices{seed, draws}, GenPolicy{});
  verify(p);
  const std::string text = print_program(p);
  RC_ASSERT(print_program(parse_program(text)) == text);
}

// Small values (the `small` mutation) stay valid too: they pick the first alternative of every choice.
RC_GTEST_PROP(Choices, SmallValuesAreAValidProgram, (uint64_t seed)) {
  const auto n = *rc::gen::inRange<size_t>(0, 4000);
  const std::vector<uint64_t> draws = *rc::gen::container<std::vector<uint64_t>>(n, rc::gen::inRange<uint64_t>(0, 16));
  verify(generate(Choices{seed, draws}, GenPolicy{}));
}

}  // namespace
}  // namespace uf::testing
