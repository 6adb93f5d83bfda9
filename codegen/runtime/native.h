// Values (core Scalars) <-> the native bytes a kernel reads and writes.
//
// Layout is docs/semantics.md's: flat little-endian arrays of the dtype's C type; bool is one byte 0/1;
// every float dtype is its storage bits (core/float_formats.h: binary16/32/64, bf16's 16, an fp8's 8).
// Reading back, a bool
// byte other than 0 is true, and every value is normalised to core's Scalar representation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/program.h"

namespace uf {

struct NativeBuffer {
  DType dtype = DType::Void;
  int64_t len = 0;
  std::vector<uint8_t> bytes;  // len * bytes(dtype)
};

NativeBuffer to_native(DType d, const Values& v);
Values from_native(const NativeBuffer& b);

// A program's buffers as its kernel takes them: one per BUFFER of p.buffers (ascending slot), filled
// from p.initial(). Throws UserError when a data line does not fit its BUFFER.
std::vector<NativeBuffer> program_buffers(const Program& p);

// Checks `bufs` against the BUFFERs of `p` (count, dtype, length, byte size); "" when they match,
// else what is wrong. A kernel trusts its caller completely, so this runs before every call.
std::string check_buffers(const Program& p, const std::vector<NativeBuffer>& bufs);

}  // namespace uf
