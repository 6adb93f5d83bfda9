// Calling a kernel the way a System V x86-64 caller does, and checking that it kept the ABI's promises.
//
// checked_call(fn, args, n) calls `void fn(void* a0, ..., void* a(n-1))`: the first six pointers in
// rdi, rsi, rdx, rcx, r8, r9, the rest on the stack (16-byte aligned at the call), with rbx, rbp and
// r12-r15 loaded with distinct canary values and the 64 KiB of stack below the call filled with 0xa5
// first (so a read of an unwritten stack slot is the same on every machine). Afterwards it compares what
// came back: a kernel that changed a callee-saved register, the stack pointer or MXCSR's control bits (rounding, FTZ/DAZ,
// exception masks) broke the ABI. Machine code from a plug-in (language x86-64) can do that; compiled
// C should never. The harness's own registers are restored whatever the kernel did.
#pragma once
#include <cstddef>
#include <string>

namespace uf {

// What every message of a broken ABI begins with (a crash's signature says `crash ABI` by it).
inline constexpr const char* kBrokeAbi = "the kernel broke the x86-64 ABI: ";

// "" when the kernel kept the ABI, else kBrokeAbi and what it broke ("callee-saved register rbx changed
// from 0x... to 0x..."). `args` must hold at least max(n, 6) pointers (the unused ones null).
std::string checked_call(void* fn, void* const* args, size_t n);

}  // namespace uf
