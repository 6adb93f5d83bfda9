// The checked kernel call (see checked_call.h): an assembly trampoline and the comparison after it.
#include "codegen/runtime/checked_call.h"

#include <xmmintrin.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>

#if !defined(__x86_64__)
#error "uopfuzz's sandbox calls kernels under the System V x86-64 ABI"
#endif

// What the trampoline saves: [0] the harness's frame, [1..6] rbx, rbp, r12-r15 as the kernel left them,
// [7] rsp after the call, [8] MXCSR after the call, [9] rsp at the call. The sandbox child is single-threaded.
extern "C" {
__attribute__((visibility("hidden"))) uint64_t uf_call_state[10];
__attribute__((visibility("hidden"))) void uf_checked_call(void* fn, void* const* args, size_t n);
}

// rbx, rbp, r12..r15 get 0x0b0b0b0b0b0b0b01 .. 06 before the call, and the 64 KiB below the call's rsp
// (where the kernel's frame will be) the byte 0xa5: a kernel that reads a stack slot it never wrote
// reads the same wrong value on every machine, instead of whatever the harness left there (often 0).
__asm__(R"(
    .text
    .p2align 4
    .globl uf_checked_call
    .hidden uf_checked_call
    .type uf_checked_call, @function
uf_checked_call:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, uf_call_state(%rip)
    movq %rdi, %rax
    movq %rsi, %r10
    xorl %r11d, %r11d
    cmpq $6, %rdx
    jbe 1f
    leaq -6(%rdx), %r11
1:  testq $1, %r11
    jnz 2f
    subq $8, %rsp
2:  testq %r11, %r11
    jz 3f
    pushq 40(%r10,%r11,8)
    decq %r11
    jmp 2b
3:  movq %rsp, uf_call_state+72(%rip)
    movq %rax, %r11
    leaq -65536(%rsp), %rdi
    movl $65536, %ecx
    movl $0xa5, %eax
    cld
    rep stosb
    movq %r11, %rax
    movq 0(%r10), %rdi
    movq 8(%r10), %rsi
    movq 16(%r10), %rdx
    movq 24(%r10), %rcx
    movq 32(%r10), %r8
    movq 40(%r10), %r9
    movabsq $0x0b0b0b0b0b0b0b01, %rbx
    movabsq $0x0b0b0b0b0b0b0b02, %rbp
    movabsq $0x0b0b0b0b0b0b0b03, %r12
    movabsq $0x0b0b0b0b0b0b0b04, %r13
    movabsq $0x0b0b0b0b0b0b0b05, %r14
    movabsq $0x0b0b0b0b0b0b0b06, %r15
    callq *%rax
    movq %rbx, uf_call_state+8(%rip)
    movq %rbp, uf_call_state+16(%rip)
    movq %r12, uf_call_state+24(%rip)
    movq %r13, uf_call_state+32(%rip)
    movq %r14, uf_call_state+40(%rip)
    movq %r15, uf_call_state+48(%rip)
    movq %rsp, uf_call_state+56(%rip)
    stmxcsr uf_call_state+64(%rip)
    movq uf_call_state(%rip), %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size uf_checked_call, .-uf_checked_call
)");

namespace uf {

namespace {

constexpr const char* kCalleeSaved[] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};
constexpr uint64_t kCanaryBase = 0x0b0b0b0b0b0b0b00;
constexpr uint32_t kMxcsrControl = 0xffc0;  // DAZ, masks, rounding, FTZ; not the sticky exception flags

std::string changed(const char* what, uint64_t from, uint64_t to) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s changed from 0x%" PRIx64 " to 0x%" PRIx64, what, from, to);
  return buf;
}

}  // namespace

std::string checked_call(void* fn, void* const* args, size_t n) {
  const uint32_t mxcsr = _mm_getcsr();
  uf_checked_call(fn, args, n);
  for (size_t r = 0; r < 6; ++r)
    if (uf_call_state[1 + r] != kCanaryBase + r + 1)
      return kBrokeAbi + std::string("callee-saved register ") +
             changed(kCalleeSaved[r], kCanaryBase + r + 1, uf_call_state[1 + r]);
  if (uf_call_state[7] != uf_call_state[9]) return std::string(kBrokeAbi) + changed("rsp", uf_call_state[9], uf_call_state[7]);
  const uint32_t after = static_cast<uint32_t>(uf_call_state[8]);
  if ((after & kMxcsrControl) != (mxcsr & kMxcsrControl)) {
    _mm_setcsr(mxcsr);  // the next kernel of the batch runs in the default environment again
    return std::string(kBrokeAbi) + changed("MXCSR's control bits", mxcsr & kMxcsrControl, after & kMxcsrControl);
  }
  return "";
}

}  // namespace uf
