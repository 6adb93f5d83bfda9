// The shapes a generator knob builds, counted over many generated programs, each of which must verify
// and print as it parses (the idiom knobs' tests).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "core/text.h"
#include "fuzz/gen/generator.h"

namespace uf::testing {

using FormCounts = std::map<std::string, int>;

inline FormCounts forms_over_seeds(const GenPolicy& policy, uint64_t seeds, const std::function<FormCounts(const Program&)>& forms_in) {
  FormCounts total;
  for (uint64_t s = 0; s < seeds; ++s) {
    const Program p = generate(s, policy);
    EXPECT_NO_THROW(verify(p)) << "seed " << s;
    const std::string text = print_program(p);
    EXPECT_EQ(print_program(parse_program(text, "seed")), text) << "seed " << s;
    for (const auto& [form, n] : forms_in(p)) total[form] += n;
  }
  return total;
}

}  // namespace uf::testing
