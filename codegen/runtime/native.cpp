// Byte conversions between core's Scalars and kernel memory (see native.h).
#include "codegen/runtime/native.h"

#include <cstring>

#include "core/error.h"
#include "core/float_formats.h"

namespace uf {

NativeBuffer to_native(DType d, const Values& v) {
  NativeBuffer b;
  b.dtype = d;
  b.len = static_cast<int64_t>(v.size());
  const int w = bytes(d);
  b.bytes.resize(v.size() * static_cast<size_t>(w));
  uint8_t* p = b.bytes.data();
  for (size_t i = 0; i < v.size(); ++i, p += w) {
    const Scalar s = normalize(d, v[i]);
    const uint64_t bits = is_float(d) ? float_storage_bits(d, s.f) : s.u;
    std::memcpy(p, &bits, static_cast<size_t>(w));  // little-endian: the low bytes
  }
  return b;
}

Values from_native(const NativeBuffer& b) {
  const DType d = b.dtype;
  const int w = bytes(d);
  UOPFUZZ_CHECK(b.bytes.size() == static_cast<size_t>(b.len) * static_cast<size_t>(w));
  Values v(static_cast<size_t>(b.len));
  const uint8_t* p = b.bytes.data();
  for (size_t i = 0; i < v.size(); ++i, p += w) {
    if (is_float(d)) {
      uint64_t bits = 0;
      std::memcpy(&bits, p, static_cast<size_t>(w));
      v[i] = Scalar::of_float(float_from_storage_bits(d, bits));
    } else if (is_bool(d)) {
      v[i] = Scalar::of_uint(*p != 0);
    } else {
      uint64_t u = 0;
      std::memcpy(&u, p, static_cast<size_t>(w));
      v[i] = normalize(d, Scalar::of_uint(u));  // sign-extends iN
    }
  }
  return v;
}

std::vector<NativeBuffer> program_buffers(const Program& p) {
  std::vector<NativeBuffer> out;
  for (const UOp* b : p.buffers) {
    Values v = p.initial(b);
    if (static_cast<int64_t>(v.size()) != b->len)
      throw UserError("data " + std::to_string(b->slot) + ": " + std::to_string(v.size()) + " values for " + name(b->dtype) +
                      "[" + std::to_string(b->len) + "]");
    out.push_back(to_native(b->dtype, v));
  }
  return out;
}

std::string check_buffers(const Program& p, const std::vector<NativeBuffer>& bufs) {
  if (bufs.size() != p.buffers.size())
    return "kernel takes " + std::to_string(p.buffers.size()) + " buffers, got " + std::to_string(bufs.size());
  for (size_t i = 0; i < bufs.size(); ++i) {
    const UOp* b = p.buffers[i];
    const NativeBuffer& n = bufs[i];
    const std::string want = std::string(name(b->dtype)) + "[" + std::to_string(b->len) + "]";
    if (n.dtype != b->dtype || n.len != b->len)
      return "buffer slot " + std::to_string(b->slot) + ": kernel wants " + want + ", got " + name(n.dtype) + "[" +
             std::to_string(n.len) + "]";
    if (n.bytes.size() != static_cast<size_t>(n.len) * static_cast<size_t>(bytes(n.dtype)))
      return "buffer slot " + std::to_string(b->slot) + ": " + std::to_string(n.bytes.size()) + " bytes for " + want;
  }
  return "";
}

}  // namespace uf
