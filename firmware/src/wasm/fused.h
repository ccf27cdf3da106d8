// The fused instructions: one instruction doing the work of two or three of ops.h, for the
// sequences compiled C spends most of its time in. Each pattern, as the compiler sees it:
//
//   kFuse          `a op2 (x op1 k)`            a hash or checksum round: a ^ rotl(x, 7),
//                                                s + (x >> 3), h | (x & 0xFF)
//   kChain         `(x op1 k1) op2 k2`           two constant operators in a row: an element
//                                                address (x << 3) + k, a bit field (x >> 8) & 0xFF,
//                                                a sign extension (x << 24) >> 24, x * 31 + 7
//   kRevImm        `k - x`, `k << x`, `k >> x`   a constant first operand: `1 << n`, `31 - n`
//   kJmpTest       `if (x & k)`                  a flag or character-class test and its jump
//   kAddJmpCmp     `i = i + k; if (i < n)`       a loop's step and its test
//   kAddJmpIf      `i = i + k; if (c)`           … on a condition computed before the step
//   kAddLoad       `p = p + 4; v = *q`           a pointer walk and the load after it
//   kAddAdd        `i = i + 1; j = j + 4`        two induction variables
//   kAddCopyN      `p = p + k; q = p`            a step, then values moved (a tee, a rotation)
//   kAddCallDirect `f(n - 1)`                    a recursive call on a decremented argument
//   kIdxLoad       `v = a[i]`                    an i32 or narrower load at `a + (i << k)` (kFuse's
//                                                shl-add) or `a + i` (an i32.add of two slots)
//   kConstIdxLoad  `v = table[i]`                … at `(i << k) + K`: an array at a constant
//                                                address (a C global: tables, buffers, states)
//   kLoadJmpCmp    `while (a[i] < x)`            a search loop's load and test
//   kLoad8JmpCmpI  `if (s[i] == '"')`            a character compared as it is loaded
//   kCopyNJmpCmp   `a = b; b = c; if (i < n)`    a loop rotating its variables before its test
//   kCopyNJmp      `a = b; continue`             values moved around a loop, then its jump
//   kConstJmp      `state = K; break`            a constant stored to a local (a state
//                                                machine's next state, a flag), then a jump
//
// A paired instruction keeps the first instruction's operand words where they were and puts
// the second's right after them (the second's opcode word is not written), so the compiler
// fuses by rewriting one opcode word and emitting the rest, and the executor finds every
// operand at a fixed position: the names below. The second instruction still runs second and
// sees the first's result (`i = i + k` is stored before `i < n` is tested).
#pragma once
#include "ops.h"

namespace k32 {
namespace wasm {
namespace op {
enum : uint32_t {
  kCopyNJmp = kFusedBase,  // kCopyN then kJmp: [n, (src, dst) x n, target]
  // + (fuse1_index(op1) * 4 + fuse2_index(op2)) * 2 + (0: result to dst, 1: to the
  // accumulator); [a, x, k, dst]
  kFuse,
  kAddJmpCmp = kFuse + 6 * 8,            // + compare index: add, then [b, target]
  kAddJmpCmpI = kAddJmpCmp + kCompares,  // + compare index: add, then [imm, target]
  // + compare index: i32.load [addr, offset, dst], then [b, target]
  kLoadJmpCmp = kAddJmpCmpI + kCompares,
  // + compare index: [n, (src, dst) x n], then [a, b, target]
  kCopyNJmpCmp = kLoadJmpCmp + kCompares,
  // + compare index: an i32.load8_u at `x + k` (wrapping at 2^32) [x, k, dst], then [imm, target]
  kLoad8JmpCmpI = kCopyNJmpCmp + kCompares,
  // + rev_index * 2 + (0: to dst, 1: to the accumulator); [k, b, dst]
  kRevImm = kLoad8JmpCmpI + kCompares,
  // jump when `a & k` is zero (+0) or not (+1): the and-immediate's [a, k, dst (unused)], then
  // [target] (a from a slot: with `a` from the accumulator it served one program of the set)
  kJmpTest = kRevImm + 8,
  kAddLoad = kJmpTest + 2,  // add, then an i32.load [addr, offset, dst]
  kAddAdd,                  // add, then another add-immediate [x, k, sum]
  kAddCopyN,                // add, then copies [n, (src, dst) x n]
  kAddCopyNJmp,             // kAddCopyN then kJmp: add, [n, (src, dst) x n, target]
  kAddJmpIf,                // add, then a kJmpIf [cond, target]
  kAddJmpUnless,            // add, then a kJmpUnless [cond, target]
  kAddCallDirect,           // add, then a kCallDirect [offset, base]
  // + idx_load_index(load) * 2 + (0: value to dst, 1: to the accumulator): kFuse's
  // `a + (x << k)` (or `a + x`, k 0), then a load there: [a, x, k, dst, offset]
  kIdxLoad,
  // + idx_load_index(load) * 4 + (0: i from a slot, 2: from the accumulator) + (0: value to
  // dst, 1: to the accumulator): a shift-left-immediate, then a load at its result plus a
  // constant, wrapping at 2^32 (the pending `x + K` of an array at a constant address):
  // [i, k, K, dst]
  kConstIdxLoad = kIdxLoad + 5 * 2,
  // + (chain1_index(op1) * kChainOps2 + chain2_index(op2)) * 2 + (0: result to dst, 1: to the
  // accumulator); [x, k1, k2, dst]
  kChain = kConstIdxLoad + 5 * 4,
  // select with a constant operand, which the instruction carries (select moves bits, so any
  // constant below 2^32 of any type): + 0 the first ([imm, b, cond, dst]), + 1 the second
  // ([a, imm, cond, dst]), + 2 both
  kSelectImm = kChain + 6 * 6 * 2,
  // select with its condition in the accumulator (a compare or mask computed just before):
  // + 0 operands from slots, + 1 + kSelectImm's variants; the layout is select's
  kSelectAcc = kSelectImm + 3,
  kConstJmp = kSelectAcc + 4,  // kI32Const then kJmp: [dst, bits, target]
  // f64 arithmetic with a constant no f32 holds exactly (0.1, 0.01, 9.81), carried whole:
  // + f64k_index: [x, dst, lo, hi]
  kF64Wide,
  // A float compare whose only use is a conditional jump (`if (y < 0.0)`, `while (d > eps)`),
  // as one instruction, like the i32 compare-and-jump of ops.h: + (compare opcode - f32.eq) * 2
  // + (0: b from a slot, 1: b a constant, kImm's encoding): [a, b, sense, target], jumping
  // when the compare's result equals `sense` (0 or 1). A float compare cannot be negated (a
  // NaN makes both `a < b` and `a >= b` false), so the sense is a word rather than a second
  // set of handlers; `ne` is `eq` of the other sense, and from slots `a > b` is `b < a` and
  // `a >= b` is `b <= a` (their numbers have no handler).
  kFJmpCmp = kF64Wide + 6,
  // + (f64 compare opcode - f64.eq), against an f64 constant no f32 holds (1e-12, 0.1),
  // carried whole as kF64Wide does: [a, lo, hi, sense, target] (no `ne`: `eq`'s other sense)
  kFJmpCmpW = kFJmpCmp + (opc::kF64Ge - opc::kF32Eq + 1) * 2,
  kCount = kFJmpCmpW + 6,
};

// Operand words, counted from the first word after the opcode.
// The first instruction of a pair:
enum AddImmWords : uint32_t { kAddX, kAddK, kAddSum, kAddEnd };            // i32 `sum = x + k`
enum LoadWords : uint32_t { kLoadAddr, kLoadOffset, kLoadDst, kLoadEnd };  // a load (wrap: x, k)
// The second instruction, from where the first one's words end:
enum CmpJmpWords : uint32_t { kCmpB, kCmpTarget, kCmpEnd };  // compare the first's result with b
enum CondJmpWords : uint32_t { kCondSlot, kCondTarget, kCondEnd };
enum CallWords : uint32_t { kCallOffset, kCallBase, kCallEnd };
// copies [n, (src, dst) x n] then a compare-and-jump [a, b, target]
enum CopyWords : uint32_t { kCopyCount, kCopyFirst };
enum TestCmpWords : uint32_t { kTestA, kTestB, kTestTarget, kTestEnd };
// kFuse [a, x, k, dst]; kChain [x, k1, k2, dst]; kRevImm [k, b, dst]
enum FuseWords : uint32_t { kFuseA, kFuseX, kFuseK, kFuseDst, kFuseEnd };
// kConstIdxLoad [i, k, K, dst]: the shift-left-immediate's words, K in place of its result
enum ConstIdxWords : uint32_t { kCidxI, kCidxK, kCidxBase, kCidxDst, kCidxEnd };
enum ChainWords : uint32_t { kChainX, kChainK1, kChainK2, kChainDst, kChainEnd };
// kJmpTest: the and-immediate's words, then the target
enum TestWords : uint32_t { kAndA, kAndK, kAndDst, kAndTarget, kAndEnd };

// kF64Wide's forms: add, x - k, mul, x / k, k - x, k / x (left: the constant is the first
// operand); -1 for other operators.
constexpr int f64k_index(uint32_t o, bool left) {
  return o == opc::kF64Add   ? 0
         : o == opc::kF64Mul ? 2
         : o == opc::kF64Sub ? (left ? 4 : 1)
         : o == opc::kF64Div ? (left ? 5 : 3)
                             : -1;
}
// i32 operators of kFuse: op1 rotl shl shr_u and xor add (no rotr: compilers write a rotate by
// a constant as rotl; no shr_s, which no program of the benchmark set combines so); op2
// (commutative) xor add and or
constexpr int fuse1_index(uint32_t o) {
  return o == opc::kI32Rotl   ? 0
         : o == opc::kI32Shl  ? 1
         : o == opc::kI32ShrU ? 2
         : o == opc::kI32And  ? 3
         : o == opc::kI32Xor  ? 4
         : o == opc::kI32Add  ? 5
                              : -1;
}
constexpr int fuse2_index(uint32_t o) {
  return o == opc::kI32Xor ? 0 : o == opc::kI32Add ? 1 : o == opc::kI32And ? 2 : o == opc::kI32Or ? 3 : -1;
}
// i32 operators of kChain: op1 shl shr_u shr_s and add mul, op2 add and or xor shr_s shr_u
// (an add-immediate is only an op1 when its sum had to be computed: `x + k` is otherwise
// kept pending for an address, compile_numeric.inc)
constexpr uint32_t kChainOps2 = 6;
constexpr int chain1_index(uint32_t o) {
  return o == opc::kI32Shl    ? 0
         : o == opc::kI32ShrU ? 1
         : o == opc::kI32ShrS ? 2
         : o == opc::kI32And  ? 3
         : o == opc::kI32Add  ? 4
         : o == opc::kI32Mul  ? 5
                              : -1;
}
constexpr int chain2_index(uint32_t o) {
  return o == opc::kI32Add    ? 0
         : o == opc::kI32And  ? 1
         : o == opc::kI32Or   ? 2
         : o == opc::kI32Xor  ? 3
         : o == opc::kI32ShrS ? 4
         : o == opc::kI32ShrU ? 5
                              : -1;
}
// The pairs kChain has a handler for. Left out: two shifts right in a row, and `(x & k1) & k2`
// (compilers combine those into one), and `(x + k1) + k2` (the compiler folds that into one
// pending add, compile_numeric.inc).
constexpr bool chain_pair(int i1, int i2) {
  return i1 >= 0 && i2 >= 0 && !((i1 == 1 || i1 == 2) && i2 >= 4) && !(i1 == 3 && i2 == 1) && !(i1 == 4 && i2 == 0);
}
// The loads of kIdxLoad: i32.load, i32.load8_s/u, i32.load16_s/u.
constexpr int idx_load_index(uint32_t o) {
  return o == opc::kI32Load ? 0 : o >= opc::kI32Load8S && o <= opc::kI32Load16U ? int(o - opc::kI32Load8S) + 1 : -1;
}
// i32 operators of kRevImm: sub shl shr_s shr_u
constexpr int rev_index(uint32_t o) {
  return o == opc::kI32Sub ? 0 : o >= opc::kI32Shl && o <= opc::kI32ShrU ? int(o - opc::kI32Shl + 1) : -1;
}
}  // namespace op
}  // namespace wasm
}  // namespace k32

// The executor's handlers of the fused instructions (exec_fused.inc), as K32_R(opcode, label).
// Kept out of clang-format: handler rows paired by meaning (each `s` form beside its `a`).
// clang-format off
#define K32_REG_FUSE(i)                                                                          \
  K32_R(op::kFuse + i * 8 + 0, fu##i##_0s) K32_R(op::kFuse + i * 8 + 1, fu##i##_0a)                \
  K32_R(op::kFuse + i * 8 + 2, fu##i##_1s) K32_R(op::kFuse + i * 8 + 3, fu##i##_1a)                \
  K32_R(op::kFuse + i * 8 + 4, fu##i##_2s) K32_R(op::kFuse + i * 8 + 5, fu##i##_2a)                \
  K32_R(op::kFuse + i * 8 + 6, fu##i##_3s) K32_R(op::kFuse + i * 8 + 7, fu##i##_3a)
#define K32_REG_CHAIN2(i, j)                                                                     \
  K32_R(op::kChain + (i * op::kChainOps2 + j) * 2, ch##i##_##j##s)                                 \
  K32_R(op::kChain + (i * op::kChainOps2 + j) * 2 + 1, ch##i##_##j##a)
// the pairs chain_pair() admits, by op1's row: shl and mul with every op2, the shifts right
// with no second shift right, and/add with no second of themselves
#define K32_FOR_EACH_CHAIN(M)                                                                    \
  M(0, 0) M(0, 1) M(0, 2) M(0, 3) M(0, 4) M(0, 5)                                                  \
  M(1, 0) M(1, 1) M(1, 2) M(1, 3)                                                                  \
  M(2, 0) M(2, 1) M(2, 2) M(2, 3)                                                                  \
  M(3, 0) M(3, 2) M(3, 3) M(3, 4) M(3, 5)                                                          \
  M(4, 1) M(4, 2) M(4, 3) M(4, 4) M(4, 5)                                                          \
  M(5, 0) M(5, 1) M(5, 2) M(5, 3) M(5, 4) M(5, 5)
#define K32_REG_FUSED_CMP(i)                                                                     \
  K32_R(op::kAddJmpCmp + i, ajc##i) K32_R(op::kAddJmpCmpI + i, ajci##i)                            \
  K32_R(op::kLoadJmpCmp + i, ljc##i) K32_R(op::kLoad8JmpCmpI + i, l8jc##i)                         \
  K32_R(op::kCopyNJmpCmp + i, cjc##i)
// the float compare-and-jumps, by (compare opcode - f32.eq): f32 eq ne lt gt le ge, then f64's;
// from slots only eq, lt and le (kFJmpCmp), against f64 constants carried whole no ne
#define K32_FOR_EACH_FJMP_SS(M) M(0, F32, ==) M(2, F32, <) M(4, F32, <=) M(6, F64, ==) M(8, F64, <) M(10, F64, <=)
#define K32_FOR_EACH_FJMP_SI(M)                                                                  \
  M(0, F32, ==) M(2, F32, <) M(3, F32, >) M(4, F32, <=) M(5, F32, >=)                              \
  M(6, F64, ==) M(8, F64, <) M(9, F64, >) M(10, F64, <=) M(11, F64, >=)
#define K32_FOR_EACH_FJMP_WIDE(M) M(0, F64, ==) M(2, F64, <) M(3, F64, >) M(4, F64, <=) M(5, F64, >=)
#define K32_REG_FJMP_SS(i, T, cmp) K32_R(op::kFJmpCmp + i * 2, fjc##i)
#define K32_REG_FJMP_SI(i, T, cmp) K32_R(op::kFJmpCmp + i * 2 + 1, fjci##i)
#define K32_REG_FJMP_WIDE(i, T, cmp) K32_R(op::kFJmpCmpW + i, fjcw##i)
#define K32_REG_CIDX(b, h) \
  K32_R(op::kConstIdxLoad + b, h) K32_R(op::kConstIdxLoad + b + 1, h##_a) \
  K32_R(op::kConstIdxLoad + b + 2, h##_x) K32_R(op::kConstIdxLoad + b + 3, h##_xa)
#define K32_FUSED_HANDLERS                                                                       \
  K32_REG_FUSE(0) K32_REG_FUSE(1) K32_REG_FUSE(2) K32_REG_FUSE(3) K32_REG_FUSE(4) K32_REG_FUSE(5)   \
  K32_FOR_EACH_COMPARE_INDEX(K32_REG_FUSED_CMP)                                                    \
  K32_R(op::kJmpTest + 0, jtest_zs) K32_R(op::kJmpTest + 1, jtest_nzs)                             \
  K32_R(op::kRevImm + 0, rev_sub_s) K32_R(op::kRevImm + 1, rev_sub_a)                              \
  K32_R(op::kRevImm + 2, rev_shl_s) K32_R(op::kRevImm + 3, rev_shl_a)                              \
  K32_R(op::kRevImm + 4, rev_shr_s_s) K32_R(op::kRevImm + 5, rev_shr_s_a)                          \
  K32_R(op::kRevImm + 6, rev_shr_u_s) K32_R(op::kRevImm + 7, rev_shr_u_a)                          \
  K32_R(op::kAddLoad, add_load) K32_R(op::kAddAdd, add_add)                                        \
  K32_R(op::kAddJmpIf, add_jmp_if) K32_R(op::kAddJmpUnless, add_jmp_unless)                        \
  K32_R(op::kAddCopyN, add_copyn) K32_R(op::kAddCopyNJmp, add_copyn_jmp)                           \
  K32_R(op::kCopyNJmp, copyn_jmp) K32_R(op::kConstJmp, const_jmp)                                  \
  K32_R(op::kF64Wide + 0, f64k_add) K32_R(op::kF64Wide + 1, f64k_sub)                              \
  K32_R(op::kF64Wide + 2, f64k_mul) K32_R(op::kF64Wide + 3, f64k_div)                              \
  K32_R(op::kF64Wide + 4, f64k_rsub) K32_R(op::kF64Wide + 5, f64k_rdiv)                            \
  K32_R(op::kAddCallDirect, add_call_direct)                                                       \
  K32_FOR_EACH_FJMP_SS(K32_REG_FJMP_SS) K32_FOR_EACH_FJMP_SI(K32_REG_FJMP_SI)                       \
  K32_FOR_EACH_FJMP_WIDE(K32_REG_FJMP_WIDE)                                                        \
  K32_R(op::kIdxLoad + 0, idx_load) K32_R(op::kIdxLoad + 1, idx_load_a)                            \
  K32_R(op::kIdxLoad + 2, idx_load8s) K32_R(op::kIdxLoad + 3, idx_load8s_a)                        \
  K32_R(op::kIdxLoad + 4, idx_load8u) K32_R(op::kIdxLoad + 5, idx_load8u_a)                        \
  K32_R(op::kIdxLoad + 6, idx_load16s) K32_R(op::kIdxLoad + 7, idx_load16s_a)                      \
  K32_R(op::kIdxLoad + 8, idx_load16u) K32_R(op::kIdxLoad + 9, idx_load16u_a)                        \
  K32_REG_CIDX(0, cidx_load) K32_REG_CIDX(4, cidx_load8s) K32_REG_CIDX(8, cidx_load8u)               \
  K32_REG_CIDX(12, cidx_load16s) K32_REG_CIDX(16, cidx_load16u)                                     \
  K32_FOR_EACH_CHAIN(K32_REG_CHAIN2)
// clang-format on

namespace k32 {
namespace wasm {
namespace op {
// kFuse's operators, by their index (the executor instantiates every pair).
template <int I>
inline uint32_t fuse_op1(uint32_t x, uint32_t k) {
  if constexpr (I == 0) return k & 31 ? (x << (k & 31)) | (x >> (32 - (k & 31))) : x;  // rotl
  if constexpr (I == 1) return x << (k & 31);
  if constexpr (I == 2) return x >> (k & 31);
  if constexpr (I == 3) return x & k;
  if constexpr (I == 4) return x ^ k;
  return x + k;
}
// kChain's operators, by their index (the executor instantiates every pair).
template <int I>
inline uint32_t chain_op1(uint32_t x, uint32_t k) {
  if constexpr (I == 0) return x << (k & 31);
  if constexpr (I == 1) return x >> (k & 31);
  if constexpr (I == 2) return uint32_t(int32_t(x) >> (k & 31));
  if constexpr (I == 3) return x & k;
  if constexpr (I == 4) return x + k;
  return x * k;
}
template <int I>
inline uint32_t chain_op2(uint32_t t, uint32_t k) {
  if constexpr (I == 0) return t + k;
  if constexpr (I == 1) return t & k;
  if constexpr (I == 2) return t | k;
  if constexpr (I == 3) return t ^ k;
  if constexpr (I == 4) return uint32_t(int32_t(t) >> (k & 31));
  return t >> (k & 31);
}
template <int I>
inline uint32_t fuse_op2(uint32_t a, uint32_t t) {
  if constexpr (I == 0) return a ^ t;
  if constexpr (I == 1) return a + t;
  if constexpr (I == 2) return a & t;
  return a | t;
}
}  // namespace op
}  // namespace wasm
}  // namespace k32
