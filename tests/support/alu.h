// exec_alu on operands whose result is defined (the test fails where it is not), for tests that compute
// with tinygrad's arithmetic directly.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>

#include "interp/alu.h"

namespace uf::testing {

inline Scalar exec_defined(Op op, DType result, DType operand, std::initializer_list<Scalar> operands) {
  const AluResult r = exec_alu(op, result, operand, operands.begin());
  EXPECT_TRUE(r.defined()) << name(op);
  return r.value;
}

}  // namespace uf::testing
