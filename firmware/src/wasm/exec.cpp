// The executor: computed-goto dispatch over the slot-machine code of ops.h. Locals and
// operands live in one bounded array of 64-bit slots; frames in another. Stack space for a
// whole call is checked once at entry (the compiler knows each function's maximum height),
// so instructions need no checks and recursion can never overflow the native stack: deep
// recursion ends in a clean "call stack exhausted" trap.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "internal.h"
#include "ops.h"

#if !defined(__GNUC__)
#error "the interpreter uses computed goto (GCC/Clang labels as values)"
#endif

// Compiled code names each instruction's handler in a 32-bit word. Where code addresses fit
// in one (32-bit targets such as the ESP32, position-dependent x86-64 builds) the word is
// the handler's address and dispatch is a load and a jump; elsewhere it is the handler's
// offset from a base address kept in a register, which costs an add per instruction.
#if !defined(K32_WASM_ABSOLUTE_DISPATCH)
#if UINTPTR_MAX == 0xFFFFFFFFu || (defined(__x86_64__) && !defined(__PIC__) && !defined(__PIE__))
#define K32_WASM_ABSOLUTE_DISPATCH 1
#else
#define K32_WASM_ABSOLUTE_DISPATCH 0
#endif
#endif

// Every handler of the executor as R(opcode, label suffix), expanded twice: into the opcodes
// (a constexpr table mapping each opcode to its entry) and, inside execute(), into the handler
// addresses (a const table, so it stays in flash on the boards). Later entries override earlier
// ones; opcodes not listed reach L_bad, the first entry (and the base of relative dispatch).
#define K32_BIN(R, o)                                                                     \
  R(op::acc_op(op::kSSA, o), o##_v0) R(op::acc_op(op::kASS, o), o##_v2)                   \
  R(op::acc_op(op::kASA, o), o##_v3) R(op::acc_op(op::kSAS, o), o##_v6)                   \
  R(op::acc_op(op::kSAA, o), o##_v7)
#define K32_BINI(R, o)                                                                    \
  K32_BIN(R, o) R(op::acc_op(op::kSIA, o), o##_v1) R(op::acc_op(op::kAIS, o), o##_v4)     \
  R(op::acc_op(op::kAIA, o), o##_v5)
#define K32_JC(R, i)                                                                      \
  R(op::kJmpCmp + i, jc##i) R(op::kJmpCmpI + i, jci##i) R(op::kJmpCmpA + i, jca##i)       \
  R(op::kJmpCmpAI + i, jcai##i) R(op::kJmpCmpSA + i, jcsa##i)
// loads and stores by accumulator variant; f32/f64 share the i32/i64 bit-copying handlers
#define K32_LOADV(R, k, h)                                                                \
  R(op::kLoadAcc + 0 * 16 + k, h##_bas) R(op::kLoadAcc + 1 * 16 + k, h##_bsa)             \
  R(op::kLoadAcc + 2 * 16 + k, h##_baa) R(op::kLoadAcc + 3 * 16 + k, h##_was)             \
  R(op::kLoadAcc + 4 * 16 + k, h##_wsa) R(op::kLoadAcc + 5 * 16 + k, h##_waa)
#define K32_STOREV(R, k, h)                                                               \
  R(op::kStoreAcc + 0 * 16 + k, h##_bv)                                                   \
  R(op::kStoreAcc + 2 * 16 + k, h##_wv) R(op::kStoreAcc + 3 * 16 + k, h##_waddr)          \
  R(op::kStoreAcc + 4 * 16 + k, h##_av)
#define K32_FUSE8(R, base, f, i)                                                          \
  R(base + i * 8 + 0, f##i##_0s) R(base + i * 8 + 1, f##i##_0a)                           \
  R(base + i * 8 + 2, f##i##_1s) R(base + i * 8 + 3, f##i##_1a)                           \
  R(base + i * 8 + 4, f##i##_2s) R(base + i * 8 + 5, f##i##_2a)                           \
  R(base + i * 8 + 6, f##i##_3s) R(base + i * 8 + 7, f##i##_3a)
#define K32_RUN8(R, base, p)                                                              \
  R(base + 0, p##0) R(base + 1, p##1) R(base + 2, p##2) R(base + 3, p##3)                 \
  R(base + 4, p##4) R(base + 5, p##5) R(base + 6, p##6) R(base + 7, p##7)
#define K32_RUN10(R, base, p) K32_RUN8(R, base, p) R(base + 8, p##8) R(base + 9, p##9)
#define K32_WASM_HANDLERS(R) \
  R(op::kCount, bad) \
  R(op::kUnreachable, unreachable) \
  R(op::kSelect, select) \
  R(op::kSelectImm + 0, select_is) R(op::kSelectImm + 1, select_si) \
  R(op::kSelectImm + 2, select_ii) \
  R(op::kImm + 0x6D, 0x6D_i) R(op::kImm + 0x6E, 0x6E_i) R(op::kImm + 0x6F, 0x6F_i) \
  R(op::kImm + 0x70, 0x70_i) \
  R(op::kCopy, copy) \
  R(op::kCopy2, copy2) \
  R(op::kCopyN, copyn) \
  R(op::kGlobalGet, global_get) \
  R(op::kGlobalSet, global_set) \
  R(op::kTableGet, table_get) \
  R(op::kTableSet, table_set) \
  R(op::kCall, call) \
  R(op::kCallIndirect, call_indirect) \
  R(op::kI32Const, i32_const) \
  R(op::kI64Const, i64_const) \
  R(op::kF32Const, i32_const) \
  R(op::kF64Const, i64_const) \
  R(op::kRefNull, ref_null) \
  R(op::kRefIsNull, ref_is_null) \
  R(op::kRefFunc, ref_func) \
  R(op::kJmp, jmp) \
  R(op::kJmpIf, jmp_if) \
  R(op::kJmpUnless, jmp_unless) \
  R(op::kBr, br) \
  R(op::kBrIf, br_if) \
  R(op::kBrTable, br_table) \
  R(op::kReturn, ret) \
  R(op::kReturn1, ret1) \
  R(op::kCallDirect, call_direct) \
  R(0x28, 0x28) R(0x29, 0x29) R(0x2A, 0x28) R(0x2B, 0x29) R(0x2C, 0x2C) \
  R(0x2D, 0x2D) R(0x2E, 0x2E) R(0x2F, 0x2F) R(0x30, 0x30) R(0x31, 0x31) \
  R(0x32, 0x32) R(0x33, 0x33) R(0x34, 0x34) R(0x35, 0x35) R(0x36, 0x36) \
  R(0x37, 0x37) R(0x38, 0x36) R(0x39, 0x37) R(0x3A, 0x3A) R(0x3B, 0x3B) \
  R(0x3C, 0x3A) R(0x3D, 0x3B) R(0x3E, 0x36) \
  R(0x3F, 0x3F) R(0x40, 0x40) \
  R(0x45, 0x45) R(0x46, 0x46) R(0x47, 0x47) R(0x48, 0x48) R(0x49, 0x49) \
  R(0x4A, 0x4A) R(0x4B, 0x4B) R(0x4C, 0x4C) R(0x4D, 0x4D) R(0x4E, 0x4E) \
  R(0x4F, 0x4F) R(0x50, 0x50) R(0x51, 0x51) R(0x52, 0x52) R(0x53, 0x53) \
  R(0x54, 0x54) R(0x55, 0x55) R(0x56, 0x56) R(0x57, 0x57) R(0x58, 0x58) \
  R(0x59, 0x59) R(0x5A, 0x5A) R(0x5B, 0x5B) R(0x5C, 0x5C) R(0x5D, 0x5D) \
  R(0x5E, 0x5E) R(0x5F, 0x5F) R(0x60, 0x60) R(0x61, 0x61) R(0x62, 0x62) \
  R(0x63, 0x63) R(0x64, 0x64) R(0x65, 0x65) R(0x66, 0x66) R(0x67, 0x67) \
  R(0x68, 0x68) R(0x69, 0x69) R(0x6A, 0x6A) R(0x6B, 0x6B) R(0x6C, 0x6C) \
  R(0x6D, 0x6D) R(0x6E, 0x6E) R(0x6F, 0x6F) R(0x70, 0x70) R(0x71, 0x71) \
  R(0x72, 0x72) R(0x73, 0x73) R(0x74, 0x74) R(0x75, 0x75) R(0x76, 0x76) \
  R(0x77, 0x77) R(0x78, 0x78) R(0x79, 0x79) R(0x7A, 0x7A) R(0x7B, 0x7B) \
  R(0x7C, 0x7C) R(0x7D, 0x7D) R(0x7E, 0x7E) R(0x7F, 0x7F) R(0x80, 0x80) \
  R(0x81, 0x81) R(0x82, 0x82) R(0x83, 0x83) R(0x84, 0x84) R(0x85, 0x85) \
  R(0x86, 0x86) R(0x87, 0x87) R(0x88, 0x88) R(0x89, 0x89) R(0x8A, 0x8A) \
  R(0x8B, 0x8B) R(0x8C, 0x8C) R(0x8D, 0x8D) R(0x8E, 0x8E) R(0x8F, 0x8F) \
  R(0x90, 0x90) R(0x91, 0x91) R(0x92, 0x92) R(0x93, 0x93) R(0x94, 0x94) \
  R(0x95, 0x95) R(0x96, 0x96) R(0x97, 0x97) R(0x98, 0x98) R(0x99, 0x99) \
  R(0x9A, 0x9A) R(0x9B, 0x9B) R(0x9C, 0x9C) R(0x9D, 0x9D) R(0x9E, 0x9E) \
  R(0x9F, 0x9F) R(0xA0, 0xA0) R(0xA1, 0xA1) R(0xA2, 0xA2) R(0xA3, 0xA3) \
  R(0xA4, 0xA4) R(0xA5, 0xA5) R(0xA6, 0xA6) R(0xA7, 0xA7) R(0xA8, 0xA8) \
  R(0xA9, 0xA9) R(0xAA, 0xAA) R(0xAB, 0xAB) R(0xAC, 0xAC) R(0xAD, 0xAD) \
  R(0xAE, 0xAE) R(0xAF, 0xAF) R(0xB0, 0xB0) R(0xB1, 0xB1) R(0xB2, 0xB2) \
  R(0xB3, 0xB3) R(0xB4, 0xB4) R(0xB5, 0xB5) R(0xB6, 0xB6) R(0xB7, 0xB7) \
  R(0xB8, 0xB8) R(0xB9, 0xB9) R(0xBA, 0xBA) R(0xBB, 0xBB) \
  R(0xC0, 0xC0) R(0xC1, 0xC1) R(0xC2, 0xC2) R(0xC3, 0xC3) R(0xC4, 0xC4) \
  R(0x100, fc0) R(0x101, fc1) R(0x102, fc2) R(0x103, fc3) R(0x104, fc4) \
  R(0x105, fc5) R(0x106, fc6) R(0x107, fc7) R(0x108, mem_init) \
  R(0x109, data_drop) R(0x10A, mem_copy) R(0x10B, mem_fill) R(0x10C, table_init) \
  R(0x10D, elem_drop) R(0x10E, table_copy) R(0x10F, table_grow) \
  R(0x110, table_size) R(0x111, table_fill) \
  R(op::kImm + 0x46, 0x46_i) \
  R(op::kImm + 0x47, 0x47_i) \
  R(op::kImm + 0x48, 0x48_i) \
  R(op::kImm + 0x49, 0x49_i) \
  R(op::kImm + 0x4A, 0x4A_i) \
  R(op::kImm + 0x4B, 0x4B_i) \
  R(op::kImm + 0x4C, 0x4C_i) \
  R(op::kImm + 0x4D, 0x4D_i) \
  R(op::kImm + 0x4E, 0x4E_i) \
  R(op::kImm + 0x4F, 0x4F_i) \
  R(op::kImm + 0x6A, 0x6A_i) \
  R(op::kImm + 0x6B, 0x6B_i) \
  R(op::kImm + 0x6C, 0x6C_i) \
  R(op::kImm + 0x71, 0x71_i) \
  R(op::kImm + 0x72, 0x72_i) \
  R(op::kImm + 0x73, 0x73_i) \
  R(op::kImm + 0x74, 0x74_i) \
  R(op::kImm + 0x75, 0x75_i) \
  R(op::kImm + 0x76, 0x76_i) \
  R(op::kImm + 0x77, 0x77_i) \
  R(op::kImm + 0x78, 0x78_i) \
  R(op::kImm + 0x51, 0x51_i) \
  R(op::kImm + 0x52, 0x52_i) \
  R(op::kImm + 0x53, 0x53_i) \
  R(op::kImm + 0x54, 0x54_i) \
  R(op::kImm + 0x55, 0x55_i) \
  R(op::kImm + 0x56, 0x56_i) \
  R(op::kImm + 0x57, 0x57_i) \
  R(op::kImm + 0x58, 0x58_i) \
  R(op::kImm + 0x59, 0x59_i) \
  R(op::kImm + 0x5A, 0x5A_i) \
  R(op::kImm + 0x7C, 0x7C_i) \
  R(op::kImm + 0x7D, 0x7D_i) \
  R(op::kImm + 0x7E, 0x7E_i) \
  R(op::kImm + 0x83, 0x83_i) \
  R(op::kImm + 0x84, 0x84_i) \
  R(op::kImm + 0x85, 0x85_i) \
  R(op::kImm + 0x86, 0x86_i) \
  R(op::kImm + 0x87, 0x87_i) \
  R(op::kImm + 0x88, 0x88_i) \
  R(op::kImm + 0x89, 0x89_i) \
  R(op::kImm + 0x8A, 0x8A_i) \
  R(op::kImm + 0x92, 0x92_i) \
  R(op::kImm + 0x93, 0x93_i) \
  R(op::kImm + 0x94, 0x94_i) \
  R(op::kImm + 0x95, 0x95_i) \
  R(op::kImm + 0xA0, 0xA0_i) \
  R(op::kImm + 0xA1, 0xA1_i) \
  R(op::kImm + 0xA2, 0xA2_i) \
  R(op::kImm + 0xA3, 0xA3_i) \
  R(op::kAbs + 0x00, 0x28_a) \
  R(op::kAbs + 0x01, 0x29_a) \
  R(op::kAbs + 0x02, 0x28_a) \
  R(op::kAbs + 0x03, 0x29_a) \
  R(op::kAbs + 0x04, 0x2C_a) \
  R(op::kAbs + 0x05, 0x2D_a) \
  R(op::kAbs + 0x06, 0x2E_a) \
  R(op::kAbs + 0x07, 0x2F_a) \
  R(op::kAbs + 0x08, 0x30_a) \
  R(op::kAbs + 0x09, 0x31_a) \
  R(op::kAbs + 0x0A, 0x32_a) \
  R(op::kAbs + 0x0B, 0x33_a) \
  R(op::kAbs + 0x0C, 0x34_a) \
  R(op::kAbs + 0x0D, 0x35_a) \
  R(op::kAbs + 0x0E, 0x36_a) \
  R(op::kAbs + 0x0F, 0x37_a) \
  R(op::kAbs + 0x10, 0x36_a) \
  R(op::kAbs + 0x11, 0x37_a) \
  R(op::kAbs + 0x12, 0x3A_a) \
  R(op::kAbs + 0x13, 0x3B_a) \
  R(op::kAbs + 0x14, 0x3A_a) \
  R(op::kAbs + 0x15, 0x3B_a) \
  R(op::kAbs + 0x16, 0x36_a) \
  R(op::kWrap + 0x00, 0x28_w) \
  R(op::kWrap + 0x01, 0x29_w) \
  R(op::kWrap + 0x02, 0x28_w) \
  R(op::kWrap + 0x03, 0x29_w) \
  R(op::kWrap + 0x04, 0x2C_w) \
  R(op::kWrap + 0x05, 0x2D_w) \
  R(op::kWrap + 0x06, 0x2E_w) \
  R(op::kWrap + 0x07, 0x2F_w) \
  R(op::kWrap + 0x08, 0x30_w) \
  R(op::kWrap + 0x09, 0x31_w) \
  R(op::kWrap + 0x0A, 0x32_w) \
  R(op::kWrap + 0x0B, 0x33_w) \
  R(op::kWrap + 0x0C, 0x34_w) \
  R(op::kWrap + 0x0D, 0x35_w) \
  R(op::kWrap + 0x0E, 0x36_w) \
  R(op::kWrap + 0x0F, 0x37_w) \
  R(op::kWrap + 0x10, 0x36_w) \
  R(op::kWrap + 0x11, 0x37_w) \
  R(op::kWrap + 0x12, 0x3A_w) \
  R(op::kWrap + 0x13, 0x3B_w) \
  R(op::kWrap + 0x14, 0x3A_w) \
  R(op::kWrap + 0x15, 0x3B_w) \
  R(op::kWrap + 0x16, 0x36_w) \
  R(op::kJmpIfA, jmp_if_a) \
  R(op::kJmpUnlessA, jmp_unless_a) \
  K32_BINI(R, 0x46) \
  K32_BINI(R, 0x47) \
  K32_BINI(R, 0x48) \
  K32_BINI(R, 0x49) \
  K32_BINI(R, 0x4A) \
  K32_BINI(R, 0x4B) \
  K32_BINI(R, 0x4C) \
  K32_BINI(R, 0x4D) \
  K32_BINI(R, 0x4E) \
  K32_BINI(R, 0x4F) \
  K32_BINI(R, 0x6A) \
  K32_BINI(R, 0x6B) \
  K32_BINI(R, 0x6C) \
  K32_BINI(R, 0x71) \
  K32_BINI(R, 0x72) \
  K32_BINI(R, 0x73) \
  K32_BINI(R, 0x74) \
  K32_BINI(R, 0x75) \
  K32_BINI(R, 0x76) \
  K32_BINI(R, 0x77) \
  K32_BINI(R, 0x78) \
  K32_BINI(R, 0x92) \
  K32_BINI(R, 0x93) \
  K32_BINI(R, 0x94) \
  K32_BINI(R, 0x95) \
  K32_BINI(R, 0xA0) \
  K32_BINI(R, 0xA1) \
  K32_BINI(R, 0xA2) \
  K32_BINI(R, 0xA3) \
  K32_JC(R, 0) \
  K32_JC(R, 1) \
  K32_JC(R, 2) \
  K32_JC(R, 3) \
  K32_JC(R, 4) \
  K32_JC(R, 5) \
  K32_JC(R, 6) \
  K32_JC(R, 7) \
  K32_JC(R, 8) \
  K32_JC(R, 9) \
  K32_LOADV(R, 0, 0x28) \
  K32_LOADV(R, 1, 0x29) \
  K32_LOADV(R, 2, 0x28) \
  K32_LOADV(R, 3, 0x29) \
  K32_LOADV(R, 4, 0x2C) \
  K32_LOADV(R, 5, 0x2D) \
  K32_LOADV(R, 6, 0x2E) \
  K32_LOADV(R, 7, 0x2F) \
  K32_LOADV(R, 8, 0x30) \
  K32_LOADV(R, 9, 0x31) \
  K32_LOADV(R, 10, 0x32) \
  K32_LOADV(R, 11, 0x33) \
  K32_LOADV(R, 12, 0x34) \
  K32_LOADV(R, 13, 0x35) \
  K32_STOREV(R, 0, 0x36) \
  K32_STOREV(R, 1, 0x37) \
  K32_STOREV(R, 2, 0x36) \
  K32_STOREV(R, 3, 0x37) \
  K32_STOREV(R, 4, 0x3A) \
  K32_STOREV(R, 5, 0x3B) \
  K32_STOREV(R, 6, 0x3A) \
  K32_STOREV(R, 7, 0x3B) \
  K32_STOREV(R, 8, 0x36) \
  K32_FUSE8(R, op::kFuse, fu, 0) \
  K32_FUSE8(R, op::kFuse, fu, 1) \
  K32_FUSE8(R, op::kFuse, fu, 2) \
  K32_FUSE8(R, op::kFuse, fu, 3) \
  K32_FUSE8(R, op::kFuse, fu, 4) \
  K32_FUSE8(R, op::kFuse, fu, 5) \
  K32_FUSE8(R, op::kFuse, fu, 6) \
  K32_FUSE8(R, op::kFuse, fu, 7) \
  K32_RUN10(R, op::kAddJmpCmp, ajc) \
  K32_RUN10(R, op::kAddJmpCmpI, ajci) \
  K32_RUN10(R, op::kLoadJmpCmp, ljc) \
  K32_RUN10(R, op::kLoad8JmpCmpI, l8jc) \
  K32_RUN10(R, op::kCopyNJmpCmp, cjc) \
  K32_RUN10(R, op::kAddCopyNJmpCmp, acjc) \
  R(op::kJmpTest + 0, jtest_zs) R(op::kJmpTest + 1, jtest_nzs) R(op::kJmpTest + 2, jtest_za) R(op::kJmpTest + 3, jtest_nza) \
  R(op::kRevImm + 0, rev_sub_s) R(op::kRevImm + 1, rev_sub_a) R(op::kRevImm + 2, rev_shl_s) R(op::kRevImm + 3, rev_shl_a) R(op::kRevImm + 4, rev_shr_s_s) R(op::kRevImm + 5, rev_shr_s_a) R(op::kRevImm + 6, rev_shr_u_s) R(op::kRevImm + 7, rev_shr_u_a) \
  R(op::kAddLoad, add_load) \
  R(op::kAddAdd, add_add) \
  R(op::kAddJmpIf, add_jmp_if) \
  R(op::kAddJmpUnless, add_jmp_unless) \
  R(op::kAddCopyN, add_copyn) \
  R(op::kAddCopyNJmp, add_copyn_jmp) \
  R(op::kCopyNJmp, copyn_jmp) \
  R(op::kShlAdd, shl_add) \
  R(op::kMulAdd, mul_add) \
  R(op::kAddCallDirect, add_call_direct)

namespace k32 {
namespace wasm {

namespace {
#define K32_OPCODE(n, name) uint32_t(n),
constexpr uint32_t kHandlerOps[] = {K32_WASM_HANDLERS(K32_OPCODE)};
#undef K32_OPCODE
constexpr uint32_t kHandlerCount = sizeof kHandlerOps / sizeof kHandlerOps[0];
struct HandlerSlots {
  uint16_t of[op::kCount];  // opcode -> its entry in K32_WASM_HANDLERS (0: L_bad)
};
constexpr HandlerSlots make_handler_slots() {
  HandlerSlots t{};
  for (uint32_t i = 1; i < kHandlerCount; i++)
    if (kHandlerOps[i] < op::kCount) t.of[kHandlerOps[i]] = uint16_t(i);
  return t;
}
constexpr HandlerSlots kHandlerSlots = make_handler_slots();
static_assert(kHandlerCount < 65536, "entries fit 16 bits");
}  // namespace

namespace {
// Rounding a signalling NaN must yield a quiet one (Wasm's "arithmetic NaN"); some libm
// implementations of ceil/floor/trunc return the NaN operand unchanged, so add it to itself.
template <typename F>
inline F quiet_round(F operand, F rounded) {
  return operand != operand ? operand + operand : rounded;
}


inline float f32(uint64_t v) {
  float f;
  uint32_t b = uint32_t(v);
  std::memcpy(&f, &b, 4);
  return f;
}
inline double f64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline uint64_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// min/max: NaN if either is NaN (a+b propagates it as an arithmetic NaN); -0 < +0.
inline uint64_t fmin32(uint64_t x, uint64_t y) {
  float a = f32(x), b = f32(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return (x | y) & 0xFFFFFFFFu;
  return a < b ? x : y;
}
inline uint64_t fmax32(uint64_t x, uint64_t y) {
  float a = f32(x), b = f32(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return x & y & 0xFFFFFFFFu;
  return a > b ? x : y;
}
inline uint64_t fmin64(uint64_t x, uint64_t y) {
  double a = f64(x), b = f64(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return x | y;
  return a < b ? x : y;
}
inline uint64_t fmax64(uint64_t x, uint64_t y) {
  double a = f64(x), b = f64(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return x & y;
  return a > b ? x : y;
}

inline uint32_t rotl32(uint32_t x, uint32_t n) {
  n &= 31;
  return n ? (x << n) | (x >> (32 - n)) : x;
}
inline uint32_t rotr32(uint32_t x, uint32_t n) {
  n &= 31;
  return n ? (x >> n) | (x << (32 - n)) : x;
}
inline uint64_t rotl64(uint64_t x, uint64_t n) {
  n &= 63;
  return n ? (x << n) | (x >> (64 - n)) : x;
}
inline uint64_t rotr64(uint64_t x, uint64_t n) {
  n &= 63;
  return n ? (x >> n) | (x << (64 - n)) : x;
}

// Saturating truncation: NaN -> 0, out of range -> the bound.
template <class I, class F>
inline I sat(F x, F lo_excl, F hi_excl, I lo, I hi) {
  if (x != x) return 0;
  if (!(x > lo_excl)) return lo;
  if (!(x < hi_excl)) return hi;
  return I(x);
}

// The tick's slow path, out of line because every taken jump and call has a copy of the
// test: the fuel left after this event (-1: no fuel limit), or why the run must stop.
constexpr int64_t kStopInterrupted = -2, kStopNoFuel = -3;
__attribute__((noinline)) int64_t tick_expired(const Store* s, int64_t fuel) {
  if (s->interrupt.load(std::memory_order_relaxed)) return kStopInterrupted;
  if (fuel < 0) return -1;
  return fuel == 0 ? kStopNoFuel : fuel - 1;
}

#ifdef K32_WASM_PROFILE
// Development aid (cmake -DK32_WASM_PROFILE=ON): counts executed instructions and pairs of
// consecutive ones by handler, printed at exit, to find what is worth fusing.
struct PairCount { int32_t a, b; uint64_t n; };
PairCount prof_single[1 << 12];  // by handler word (b; a unused)
PairCount prof_pairs[1 << 16];
void profile_dump();
inline void count_in(PairCount* table, uint32_t mask, int32_t prev, int32_t cur) {
  uint32_t h = (uint32_t(prev) * 2654435761u ^ uint32_t(cur) * 40503u) & mask;
  for (;; h = (h + 1) & mask) {
    PairCount& pc = table[h];
    if (pc.n == 0) { pc.a = prev; pc.b = cur; }
    if (pc.a == prev && pc.b == cur) { pc.n++; return; }
  }
}
inline void profile_count(int32_t prev, int32_t cur) {
  static bool registered = (std::atexit(profile_dump), true);
  (void)registered;
  count_in(prof_single, (1 << 12) - 1, 0, cur);
  count_in(prof_pairs, (1 << 16) - 1, prev, cur);
}
#endif
template <int I>
inline uint32_t fuse_op1(uint32_t x, uint32_t k) {
  if constexpr (I == 0) return rotl32(x, k);
  if constexpr (I == 1) return rotr32(x, k);
  if constexpr (I == 2) return x << (k & 31);
  if constexpr (I == 3) return x >> (k & 31);
  if constexpr (I == 4) return uint32_t(int32_t(x) >> (k & 31));
  if constexpr (I == 5) return x & k;
  if constexpr (I == 6) return x ^ k;
  return x + k;
}
template <int I>
inline uint32_t fuse_op2(uint32_t a, uint32_t t) {
  if constexpr (I == 0) return a ^ t;
  if constexpr (I == 1) return a + t;
  if constexpr (I == 2) return a & t;
  return a | t;
}
}  // namespace

// The dispatch loop: every handler is a label of this one function, so it is the unit the
// port places in its fastest code memory (K32_FAST_CODE); slow paths live out of line.
K32_FAST_CODE Trap execute(Store* s, Func* f, const Value* args, Value* results) {
  // Called with f == nullptr by handler_words() to publish the handler addresses.
#if K32_WASM_ABSOLUTE_DISPATCH
  const char* const dispatch_base = nullptr;
#else
  const char* const dispatch_base = static_cast<const char*>(&&L_bad);
#endif
  if (!f) {
#define K32_ADDR(n, name) &&L_##name,
    static const void* const handlers[] = {K32_WASM_HANDLERS(K32_ADDR)};
#undef K32_ADDR
    static_assert(sizeof handlers / sizeof handlers[0] == kHandlerCount, "one address per entry");
    for (const void* h : handlers) {
      intptr_t off = static_cast<const char*>(h) - dispatch_base;
      if (intptr_t(int32_t(off)) != off) {  // a build setting (code model), not a run-time condition
        std::fprintf(stderr, "k32 wasm: handler addresses do not fit 32 bits in this build\n");
        std::abort();
      }
    }
    results[0].bits = uint64_t(uintptr_t(handlers));
    return trap_ok();
  }

  Trap trap = trap_ok();
  // The handlers' base address, made opaque so that the compiler keeps it in a register
  // for the whole loop instead of rematerialising it in every handler's dispatch.
#if K32_WASM_ABSOLUTE_DISPATCH
#define HANDLER(off) reinterpret_cast<void*>(intptr_t(int32_t(off)))
#else
  const char* base_reg = dispatch_base;
  __asm__("" : "+r"(base_reg));
#define HANDLER(off) (base_reg + int32_t(off))
#endif
  const uint32_t np = f->type->nparams;
  const uint32_t nr = f->type->nresults;
  // Nested calls (a host function calling back into wasm) continue above the caller's use.
  uint64_t* const stack_base = s->stack + s->stack_used;
  uint64_t* const stack_end = s->stack + s->limits.value_stack_slots;
  const uint32_t depth_base = s->depth_used;
  const uint32_t max_depth = s->limits.call_depth;
  if (uint64_t(stack_end - stack_base) < uint64_t(np) + nr + 1 || depth_base + 1 >= max_depth)
    return trap_make(TrapCode::CallStackExhausted);
  for (uint32_t i = 0; i < np; i++) stack_base[i] = args[i].bits;

  // Frames in use are frames[depth_base, fsp); a call needs fsp < frames_end.
  Frame* fsp = s->frames + depth_base;
  Frame* const frames_end = s->frames + max_depth;
  int64_t fuel = s->fuel;
  // Taken jumps and calls count down `tick` (forward jumps too: telling them apart costs as
  // much as counting them); only when it reaches zero are the interrupt flag and the fuel
  // looked at. Without fuel that is every kTick events (a few
  // microseconds), with fuel every event, so fuel stays exact.
  constexpr uint32_t kTick = 64;
  uint32_t tick = fuel >= 0 ? 1 : kTick;
  int64_t stop = 0;  // why the tick stopped the run (tick_expired)
  uint64_t* fp = stack_base;
  const uint32_t* pc = nullptr;
  Instance* inst = nullptr;
  uint8_t* mem = nullptr;
  uint64_t memsize = 0;
  Func* callee = f;  // its frame records pc == nullptr: returning there ends the run
  uint32_t base = 0;
  uint64_t acc = 0;  // the accumulator (ops.h)

#if defined(K32_WASM_SINGLE_DISPATCH)
// One shared dispatch point (the fuzzing build): every handler jumps there. Same behaviour,
// but a control-flow graph of handlers + jumps instead of handlers x jumps, which keeps
// instrumenting compilers (ASan, coverage) from taking many minutes over this function.
#define NEXT() goto dispatch
#define NEXT_AT(n)                    \
  do {                                \
    pc += (n);                        \
    goto dispatch;                    \
  } while (0)
#elif defined(K32_WASM_PROFILE)
#define NEXT()                        \
  do {                                \
    profile_count(prof_prev, int32_t(*pc)); \
    prof_prev = int32_t(*pc);         \
    goto* HANDLER(*pc++);             \
  } while (0)
#define NEXT_AT(n)                    \
  do {                                \
    pc += (n);                        \
    NEXT();                           \
  } while (0)
  int32_t prof_prev = 0;
#else
#define NEXT() goto* HANDLER(*pc++)
// Moves past an instruction of n operand words and dispatches the next one.
#define NEXT_AT(n)                      \
  do {                                  \
    int32_t o_ = int32_t(pc[n]);        \
    pc += (n) + 1;                      \
    goto* HANDLER(o_);                  \
  } while (0)
#endif
#define S(i) fp[pc[i]]
#define TRAP(c, msg)                     \
  do {                                   \
    trap = trap_make(TrapCode::c, msg);  \
    goto done;                           \
  } while (0)
#define BUDGET()                                                        \
  do {                                                                  \
    if (__builtin_expect(--tick == 0, 0)) {                             \
      int64_t f_ = tick_expired(s, fuel);                               \
      if (f_ < -1) {                                                    \
        stop = f_;                                                      \
        goto tick_stop;                                                 \
      }                                                                 \
      fuel = f_;                                                        \
      tick = f_ >= 0 ? 1 : kTick;                                       \
    }                                                                   \
  } while (0)
#define RELOAD()                                     \
  do {                                               \
    if (inst && inst->memory) {                      \
      mem = inst->memory->data;                      \
      memsize = uint64_t(inst->memory->pages) * kPageSize; \
    } else {                                         \
      mem = nullptr;                                 \
      memsize = 0;                                   \
    }                                                \
  } while (0)
#define U32(x) uint32_t(x)
#define I32(x) int32_t(uint32_t(x))
#define I64(x) int64_t(x)
// The i32 compares in ops.h order (kJmpCmp + index): index, operand type, operator.
#define FOR_EACH_COMPARE(M)                                                                  \
  M(0, uint32_t, ==) M(1, uint32_t, !=) M(2, int32_t, <) M(3, uint32_t, <) M(4, int32_t, >) \
  M(5, uint32_t, >) M(6, int32_t, <=) M(7, uint32_t, <=) M(8, int32_t, >=) M(9, uint32_t, >=)
// Operand sources and result sinks of the accumulator variants (see ops.h).
#define SRC_S(i) fp[pc[i]]
#define SRC_A(i) acc
#define IMM32(i) uint64_t(pc[i])
#define IMM64(i) uint64_t(int64_t(int32_t(pc[i])))
#define DST_S(v) fp[pc[2]] = (v)
#define DST_A(v) acc = (v)
// One binary handler: a = CV(source A), b = CV(source B), result RES(expr) to the sink.
#define BINH(label, SA, SB, DST, CV, RES, expr) \
  L_##label : {                                  \
    auto a = CV(SA(0));                          \
    auto b = CV(SB(1));                          \
    DST(RES(expr));                              \
    NEXT_AT(3);                                      \
  }
#define RES32(x) uint64_t(uint32_t(x))
#define RES64(x) uint64_t(x)
#define RESF(x) (x)
#define ID64(x) uint64_t(x)
// Every variant of a binary operator with an immediate form (IMM: its immediate source).
#define BINALL(name, CV, RES, IMM, expr)                   \
  BINH(name, SRC_S, SRC_S, DST_S, CV, RES, expr)           \
  BINH(name##_i, SRC_S, IMM, DST_S, CV, RES, expr)         \
  BINH(name##_v0, SRC_S, SRC_S, DST_A, CV, RES, expr)      \
  BINH(name##_v1, SRC_S, IMM, DST_A, CV, RES, expr)        \
  BINH(name##_v2, SRC_A, SRC_S, DST_S, CV, RES, expr)      \
  BINH(name##_v3, SRC_A, SRC_S, DST_A, CV, RES, expr)      \
  BINH(name##_v4, SRC_A, IMM, DST_S, CV, RES, expr)        \
  BINH(name##_v5, SRC_A, IMM, DST_A, CV, RES, expr)        \
  BINH(name##_v6, SRC_S, SRC_A, DST_S, CV, RES, expr)      \
  BINH(name##_v7, SRC_S, SRC_A, DST_A, CV, RES, expr)
// Float immediates are f32 bits; an f64 one is an f32 widened exactly (ops.h).
#define IMMF32(i) uint64_t(pc[i])
#define IMMF64(i) bits(double(f32(pc[i])))
#define BIN32(name, expr) BINALL(name, U32, RES32, IMM32, expr)
#define BIN64I(name, expr)                                 \
  BINH(name, SRC_S, SRC_S, DST_S, ID64, RES64, expr)       \
  BINH(name##_i, SRC_S, IMM64, DST_S, ID64, RES64, expr)
#define BINF32A(name, expr) BINALL(name, f32, RESF, IMMF32, expr)
#define BINF64A(name, expr) BINALL(name, f64, RESF, IMMF64, expr)
#define JCMPH(label, SA, SB, T, cmp)                \
  L_##label : {                                     \
    if (T(SA(0)) cmp T(SB(1))) {                    \
      JUMP(pc + 2);                                 \
      NEXT();                                       \
    }                                               \
    NEXT_AT(3);                                     \
  }
#define JCMP(idx, T, cmp)                           \
  JCMPH(jc##idx, SRC_S, SRC_S, T, cmp)              \
  JCMPH(jci##idx, SRC_S, IMM32, T, cmp)             \
  JCMPH(jca##idx, SRC_A, SRC_S, T, cmp)             \
  JCMPH(jcai##idx, SRC_A, IMM32, T, cmp)            \
  JCMPH(jcsa##idx, SRC_S, SRC_A, T, cmp)
#define BIN64(name, expr)            \
  L_##name : {                       \
    uint64_t a = S(0);               \
    uint64_t b = S(1);               \
    S(2) = uint64_t(expr);           \
    NEXT_AT(3);                          \
  }
#define BINF32(name, expr)           \
  L_##name : {                       \
    float a = f32(S(0));             \
    float b = f32(S(1));             \
    S(2) = (expr);                   \
    NEXT_AT(3);                          \
  }
#define BINF64(name, expr)           \
  L_##name : {                       \
    double a = f64(S(0));            \
    double b = f64(S(1));            \
    S(2) = (expr);                   \
    NEXT_AT(3);                          \
  }
#define UN(name, expr)               \
  L_##name : {                       \
    uint64_t a = S(0);               \
    S(1) = (expr);                   \
    NEXT_AT(2);                          \
  }
// Loads and stores: effective address forms base (slot + offset), wrap (x + k, at 2^32) and
// abs (a constant), each with accumulator variants (ops.h).
#define EA_BASE(x) (uint64_t(U32(x)) + pc[1])
#define EA_WRAP(x) uint64_t(uint32_t(U32(x) + pc[1]))
#define LOADH(label, EA, DST, dst_word, T, conv, words)              \
  L_##label : {                                                      \
    uint64_t ea = EA;                                                \
    if (ea + sizeof(T) > memsize) goto trap_oob;                     \
    T v;                                                             \
    std::memcpy(&v, mem + ea, sizeof(T));                            \
    DST(dst_word, (conv));                                           \
    NEXT_AT(words);                                                          \
  }
#define LD_S(i, v) fp[pc[i]] = (v)
#define LD_A(i, v) acc = (v)
#define LOAD(name, T, conv)                                          \
  LOADH(name, EA_BASE(S(0)), LD_S, 2, T, conv, 3)                    \
  LOADH(name##_a, uint64_t(pc[0]), LD_S, 1, T, conv, 2)              \
  LOADH(name##_w, EA_WRAP(S(0)), LD_S, 2, T, conv, 3)                \
  LOADH(name##_bas, EA_BASE(acc), LD_S, 2, T, conv, 3)               \
  LOADH(name##_bsa, EA_BASE(S(0)), LD_A, 2, T, conv, 3)              \
  LOADH(name##_baa, EA_BASE(acc), LD_A, 2, T, conv, 3)               \
  LOADH(name##_was, EA_WRAP(acc), LD_S, 2, T, conv, 3)               \
  LOADH(name##_wsa, EA_WRAP(S(0)), LD_A, 2, T, conv, 3)              \
  LOADH(name##_waa, EA_WRAP(acc), LD_A, 2, T, conv, 3)
#define STOREH(label, EA, VAL, T, words)                             \
  L_##label : {                                                      \
    uint64_t ea = EA;                                                \
    if (ea + sizeof(T) > memsize) goto trap_oob;                     \
    T v = T(VAL);                                                    \
    std::memcpy(mem + ea, &v, sizeof(T));                            \
    NEXT_AT(words);                                                          \
  }
#define EA_BASE2(x) (uint64_t(U32(x)) + pc[2])
#define EA_WRAP2(x) uint64_t(uint32_t(U32(x) + pc[2]))
#define STORE(name, T)                                               \
  STOREH(name, EA_BASE2(S(0)), S(1), T, 3)                           \
  STOREH(name##_a, uint64_t(pc[1]), S(0), T, 2)                      \
  STOREH(name##_w, EA_WRAP2(S(0)), S(1), T, 3)                       \
  STOREH(name##_bv, EA_BASE2(S(0)), acc, T, 3)                       \
  STOREH(name##_wv, EA_WRAP2(S(0)), acc, T, 3)                       \
  STOREH(name##_waddr, EA_WRAP2(acc), S(1), T, 3)                    \
  STOREH(name##_av, uint64_t(pc[1]), acc, T, 2)
#define JUMP(at)                                  \
  do {                                            \
    const uint32_t* t_ = (at) + int32_t(*(at));   \
    BUDGET();                                     \
    pc = t_;                                      \
  } while (0)
#define MOVE(keep, from, to)                                \
  do {                                                      \
    uint64_t* d_ = fp + (to);                               \
    const uint64_t* s_ = fp + (from);                       \
    for (uint32_t k_ = 0, n_ = (keep); k_ < n_; k_++) d_[k_] = s_[k_]; \
  } while (0)

  goto do_call;

#if defined(K32_WASM_SINGLE_DISPATCH)
dispatch:
  goto* HANDLER(*pc++);
#endif
L_bad:
  TRAP(HostError, "internal error: bad opcode");
L_unreachable:
  TRAP(Unreachable, nullptr);
L_select : {
  uint64_t a = S(0), b = S(1);
  S(3) = U32(S(2)) ? a : b;
  NEXT_AT(4);
}
L_select_is : {  // the first operand an immediate
  uint64_t b = S(1);
  S(3) = U32(S(2)) ? uint64_t(pc[0]) : b;
  NEXT_AT(4);
}
L_select_si : {  // the second
  uint64_t a = S(0);
  S(3) = U32(S(2)) ? a : uint64_t(pc[1]);
  NEXT_AT(4);
}
L_select_ii :
  S(3) = U32(S(2)) ? uint64_t(pc[0]) : uint64_t(pc[1]);
  NEXT_AT(4);
L_copy:
  S(1) = S(0);
  NEXT_AT(2);
L_copy2:
  S(1) = S(0);
  S(3) = S(2);
  NEXT_AT(4);
// [n, (src, dst) x n]: the copies in order; pc ends past them
#define COPY_RUN()        \
  do {                    \
    uint32_t n_ = *pc++;  \
    do {                  \
      S(1) = S(0);        \
      pc += 2;            \
    } while (--n_);       \
  } while (0)
L_copyn:
  COPY_RUN();
  NEXT();
L_copyn_jmp:
  COPY_RUN();
  JUMP(pc);
  NEXT();
L_global_get:
  S(0) = inst->globals[pc[1]]->bits;
  NEXT_AT(2);
L_global_set:
  inst->globals[pc[1]]->bits = S(0);
  NEXT_AT(2);
L_table_get : {
  uint64_t* sp = fp + pc[0];
  Table* t = inst->tables[pc[1]];
  pc += 2;
  uint32_t i = U32(sp[-1]);
  if (i >= t->size) TRAP(TableOutOfBounds, nullptr);
  sp[-1] = t->elems[i];
  NEXT();
}
L_table_set : {
  uint64_t* sp = fp + pc[0];
  Table* t = inst->tables[pc[1]];
  pc += 2;
  uint32_t i = U32(sp[-2]);
  if (i >= t->size) TRAP(TableOutOfBounds, nullptr);
  t->elems[i] = sp[-1];
  NEXT();
}
L_i32_const:
  S(0) = pc[1];
  NEXT_AT(2);
L_i64_const:
  S(0) = uint64_t(pc[1]) | uint64_t(pc[2]) << 32;
  NEXT_AT(3);
L_ref_null:
  S(0) = 0;
  NEXT_AT(1);
L_ref_is_null:
  S(1) = S(0) == 0;
  NEXT_AT(2);
L_ref_func:
  S(0) = uint64_t(uintptr_t(inst->funcs[pc[1]]));
  NEXT_AT(2);

L_jmp:
  JUMP(pc);
  NEXT();
L_jmp_if:
  if (U32(S(0))) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_jmp_unless:
  if (!U32(S(0))) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_jmp_if_a:
  if (U32(acc)) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_jmp_unless_a:
  if (!U32(acc)) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_br_if:
  if (!U32(S(0))) {
    NEXT_AT(5);
  }
  pc++;
  // fallthrough
L_br:
  MOVE(pc[1], pc[2], pc[3]);
  JUMP(pc);
  NEXT();
L_br_table : {
  uint32_t n = pc[1];
  uint32_t i = U32(S(0));
  if (i > n) i = n;
  const uint32_t* e = pc + 2 + 4 * i;
  MOVE(e[1], e[2], e[3]);
  JUMP(e);
  NEXT();
}
  FOR_EACH_COMPARE(JCMP)

L_ret1:
  fp[0] = S(1);
  goto pop_frame;
L_ret:
  MOVE(pc[0], pc[1], 0);
pop_frame : {
  const Frame& fr = *--fsp;
  pc = fr.pc;
  fp = fr.fp;
  if (!pc) goto done;
  // Memory can only have moved under us if another instance ran (memory.grow in this
  // instance reloads at once; host functions reload after returning).
  if (fr.inst != inst) {
    inst = fr.inst;
    RELOAD();
  }
  NEXT();
}

L_call_direct : {
  // the callee's entry is relative to this word; its frame shape sits in the words before
  // it (FuncCode), so a call touches no Func
  const uint32_t* e = pc + int32_t(pc[0]);
  const uint32_t* h = e - kFuncHeaderWords;
  uint64_t* nfp = fp + pc[1];
  if (__builtin_expect(fsp == frames_end || uint64_t(stack_end - nfp) < h[kHeadSlots], 0))
    TRAP(CallStackExhausted, nullptr);
  BUDGET();
  *fsp++ = Frame{pc + 2, fp, inst};
  for (uint32_t i = h[kHeadParams], n = h[kHeadLocals]; i < n; i++) nfp[i] = 0;
  fp = nfp;
  pc = e;
  NEXT();
}
L_call:
  callee = inst->funcs[pc[0]];
  base = pc[1];
  pc += 2;
  goto do_call;
L_call_indirect : {
  uint32_t ti = pc[0];
  Table* t = inst->tables[pc[1]];
  uint32_t i = U32(S(2));
  base = pc[3];
  pc += 4;
  if (i >= t->size) TRAP(TableOutOfBounds, "undefined element");
  callee = reinterpret_cast<Func*>(uintptr_t(t->elems[i]));
  if (!callee) TRAP(UninitializedElement, nullptr);
  const FuncType& want = inst->module->types[ti];
  if (callee->type != &want && !same_type(*callee->type, want))
    TRAP(IndirectCallTypeMismatch, nullptr);
  goto do_call;
}

do_call : {
  const uint32_t cnp = callee->type->nparams;
  uint64_t* nfp = fp + base;
  if (!callee->inst) {  // host function: args copied above so results may overwrite them
    const uint32_t cnr = callee->type->nresults;
    uint64_t* tmp = nfp + (cnr > cnp ? cnr : cnp);
    if (tmp + cnp > stack_end) TRAP(CallStackExhausted, nullptr);
    for (uint32_t i = 0; i < cnp; i++) tmp[i] = nfp[i];
    s->fuel = fuel;
    uint32_t saved_used = s->stack_used, saved_depth = s->depth_used;
    s->stack_used = uint32_t(tmp + cnp - s->stack);
    s->depth_used = uint32_t(fsp - s->frames);
    Caller c{s, inst};
    Trap t = callee->host(c, reinterpret_cast<Value*>(tmp), reinterpret_cast<Value*>(nfp), callee->user);
    s->stack_used = saved_used;
    s->depth_used = saved_depth;
    fuel = s->fuel;
    if (fuel >= 0) tick = 1;
    if (!t.ok()) {
      trap = t;
      goto done;
    }
    if (!pc) goto done;  // the entry function itself was a host function
    RELOAD();
    NEXT();
  }
  if (fsp == frames_end || uint64_t(stack_end - nfp) < callee->frame_slots)
    TRAP(CallStackExhausted, nullptr);
  BUDGET();
  *fsp++ = Frame{pc, fp, inst};
  for (uint32_t i = cnp, n = callee->nlocals; i < n; i++) nfp[i] = 0;
  fp = nfp;
  if (callee->inst != inst) {
    inst = callee->inst;
    RELOAD();
  }
  pc = callee->entry;
  NEXT();
}

#define FUSEH(i1, i2)                                                        \
  L_fu##i1##_##i2##s : {                                                     \
    S(3) = fuse_op2<i2>(U32(S(0)), fuse_op1<i1>(U32(S(1)), pc[2]));          \
    NEXT_AT(4);                                                              \
  }                                                                          \
  L_fu##i1##_##i2##a : {                                                     \
    acc = fuse_op2<i2>(U32(S(0)), fuse_op1<i1>(U32(S(1)), pc[2]));           \
    NEXT_AT(4);                                                              \
  }
  FUSEH(0, 0)
  FUSEH(0, 1)
  FUSEH(0, 2)
  FUSEH(0, 3)
  FUSEH(1, 0)
  FUSEH(1, 1)
  FUSEH(1, 2)
  FUSEH(1, 3)
  FUSEH(2, 0)
  FUSEH(2, 1)
  FUSEH(2, 2)
  FUSEH(2, 3)
  FUSEH(3, 0)
  FUSEH(3, 1)
  FUSEH(3, 2)
  FUSEH(3, 3)
  FUSEH(4, 0)
  FUSEH(4, 1)
  FUSEH(4, 2)
  FUSEH(4, 3)
  FUSEH(5, 0)
  FUSEH(5, 1)
  FUSEH(5, 2)
  FUSEH(5, 3)
  FUSEH(6, 0)
  FUSEH(6, 1)
  FUSEH(6, 2)
  FUSEH(6, 3)
  FUSEH(7, 0)
  FUSEH(7, 1)
  FUSEH(7, 2)
  FUSEH(7, 3)
  // ---- an add-immediate paired with the instruction after it (ops.h) ----
#define ADD_I() uint32_t(U32(S(0)) + pc[1])
// The tail of a paired compare-and-jump [_, _, dst, b, target]: v to dst, then v cmp b.
#define SET_AND_BRANCH(v, T, cmp, b)                \
  S(2) = v;                                         \
  if (T(v) cmp T(b)) {                              \
    JUMP(pc + 4);                                   \
    NEXT();                                         \
  }                                                 \
  NEXT_AT(5);
#define ADDJCH(label, SB, T, cmp)                   \
  L_##label : {                                     \
    uint32_t v = ADD_I();                           \
    SET_AND_BRANCH(v, T, cmp, SB(3))                \
  }
#define ADDJC(idx, T, cmp)                          \
  ADDJCH(ajc##idx, SRC_S, T, cmp)                   \
  ADDJCH(ajci##idx, IMM32, T, cmp)
  FOR_EACH_COMPARE(ADDJC)
#define ADD_LOAD()                                         \
  do {                                                     \
    S(2) = ADD_I();                                        \
    uint64_t ea = uint64_t(U32(S(3))) + pc[4];             \
    if (ea + 4 > memsize) goto trap_oob;                   \
    uint32_t v;                                            \
    std::memcpy(&v, mem + ea, 4);                          \
    S(5) = v;                                              \
  } while (0)
#define ADD_ADD()                         \
  do {                                    \
    S(2) = ADD_I();                       \
    S(5) = uint32_t(U32(S(3)) + pc[4]);   \
  } while (0)
L_add_load:
  ADD_LOAD();
  NEXT_AT(6);
L_add_add:
  ADD_ADD();
  NEXT_AT(6);
L_add_jmp_if:
  S(2) = ADD_I();
  if (U32(S(3))) {
    JUMP(pc + 4);
    NEXT();
  }
  NEXT_AT(5);
L_add_jmp_unless:
  S(2) = ADD_I();
  if (!U32(S(3))) {
    JUMP(pc + 4);
    NEXT();
  }
  NEXT_AT(5);
L_add_copyn:
  S(2) = ADD_I();
  if (pc[3] == 1) {  // the usual case: `p = p + 4; q = p`
    S(5) = S(4);
    NEXT_AT(6);
  }
  pc += 3;
  goto L_copyn;
L_add_copyn_jmp:
  S(2) = ADD_I();
  pc += 3;
  goto L_copyn_jmp;
  // a constant first operand (IMM32 at word 0), the second from a slot
  BINH(rev_sub_s, IMM32, SRC_S, DST_S, U32, RES32, a - b)
  BINH(rev_sub_a, IMM32, SRC_S, DST_A, U32, RES32, a - b)
  BINH(rev_shl_s, IMM32, SRC_S, DST_S, U32, RES32, a << (b & 31))
  BINH(rev_shl_a, IMM32, SRC_S, DST_A, U32, RES32, a << (b & 31))
  BINH(rev_shr_s_s, IMM32, SRC_S, DST_S, U32, RES32, uint32_t(int32_t(a) >> (b & 31)))
  BINH(rev_shr_s_a, IMM32, SRC_S, DST_A, U32, RES32, uint32_t(int32_t(a) >> (b & 31)))
  BINH(rev_shr_u_s, IMM32, SRC_S, DST_S, U32, RES32, a >> (b & 31))
  BINH(rev_shr_u_a, IMM32, SRC_S, DST_A, U32, RES32, a >> (b & 31))
#define JTESTH(label, SA, test)                     \
  L_##label:                                        \
    if ((U32(SA(0)) & pc[1]) test 0) {              \
      JUMP(pc + 3);                                 \
      NEXT();                                       \
    }                                               \
    NEXT_AT(4);
  JTESTH(jtest_zs, SRC_S, ==)
  JTESTH(jtest_nzs, SRC_S, !=)
  JTESTH(jtest_za, SRC_A, ==)
  JTESTH(jtest_nza, SRC_A, !=)
#define LOAD8JCH(idx, T, cmp)                                        \
  L_l8jc##idx : {                                                    \
    uint64_t ea = uint32_t(U32(S(0)) + pc[1]);                       \
    if (ea + 1 > memsize) goto trap_oob;                             \
    uint32_t v = mem[ea];                                            \
    SET_AND_BRANCH(v, T, cmp, pc[3])                                 \
  }
  FOR_EACH_COMPARE(LOAD8JCH)
L_mul_add:
  S(3) = uint32_t(U32(S(0)) * pc[1] + pc[2]);
  NEXT_AT(4);
L_add_call_direct:
  S(2) = ADD_I();
  pc += 3;
  goto L_call_direct;
L_shl_add:
  S(3) = uint32_t((U32(S(0)) << (pc[1] & 31)) + pc[2]);
  NEXT_AT(4);
#define LOADJCH(idx, T, cmp)                                         \
  L_ljc##idx : {                                                     \
    uint64_t ea = uint64_t(U32(S(0))) + pc[1];                       \
    if (ea + 4 > memsize) goto trap_oob;                             \
    uint32_t v;                                                      \
    std::memcpy(&v, mem + ea, 4);                                    \
    SET_AND_BRANCH(v, T, cmp, S(3))                                  \
  }
#define COPYJCH(idx, T, cmp)                                         \
  L_cjc##idx:                                                        \
    COPY_RUN();                                                      \
  L_cjct##idx:                                                       \
    if (T(S(0)) cmp T(S(1))) {                                       \
      JUMP(pc + 2);                                                  \
      NEXT();                                                        \
    }                                                                \
    NEXT_AT(3);                                                      \
  L_acjc##idx:                                                       \
    S(2) = ADD_I();                                                  \
    if (pc[3] == 1) { /* the usual single copy */                    \
      S(5) = S(4);                                                   \
      pc += 6;                                                       \
      goto L_cjct##idx;                                              \
    }                                                                \
    pc += 3;                                                         \
    goto L_cjc##idx;
  FOR_EACH_COMPARE(COPYJCH)
  FOR_EACH_COMPARE(LOADJCH)
  // ---- memory ----
  LOAD(0x28, uint32_t, v)
  LOAD(0x29, uint64_t, v)
  LOAD(0x2C, int8_t, uint32_t(int32_t(v)))
  LOAD(0x2D, uint8_t, v)
  LOAD(0x2E, int16_t, uint32_t(int32_t(v)))
  LOAD(0x2F, uint16_t, v)
  LOAD(0x30, int8_t, uint64_t(int64_t(v)))
  LOAD(0x31, uint8_t, v)
  LOAD(0x32, int16_t, uint64_t(int64_t(v)))
  LOAD(0x33, uint16_t, v)
  LOAD(0x34, int32_t, uint64_t(int64_t(v)))
  LOAD(0x35, uint32_t, v)
  STORE(0x36, uint32_t)
  STORE(0x37, uint64_t)
  STORE(0x3A, uint8_t)
  STORE(0x3B, uint16_t)
L_0x3F:
  S(0) = inst->memory->pages;
  NEXT_AT(1);
L_0x40 : {
  uint32_t old;
  uint32_t delta = U32(S(0));
  S(1) = memory_grow(s, inst->memory, delta, &old) ? old : 0xFFFFFFFFu;
  pc += 2;
  RELOAD();
  NEXT();
}

  // ---- i32 ----
  UN(0x45, U32(a) == 0)
  BIN32(0x46, a == b)
  BIN32(0x47, a != b)
  BIN32(0x48, int32_t(a) < int32_t(b))
  BIN32(0x49, a < b)
  BIN32(0x4A, int32_t(a) > int32_t(b))
  BIN32(0x4B, a > b)
  BIN32(0x4C, int32_t(a) <= int32_t(b))
  BIN32(0x4D, a <= b)
  BIN32(0x4E, int32_t(a) >= int32_t(b))
  BIN32(0x4F, a >= b)
  UN(0x50, a == 0)
  BIN64I(0x51, a == b)
  BIN64I(0x52, a != b)
  BIN64I(0x53, I64(a) < I64(b))
  BIN64I(0x54, a < b)
  BIN64I(0x55, I64(a) > I64(b))
  BIN64I(0x56, a > b)
  BIN64I(0x57, I64(a) <= I64(b))
  BIN64I(0x58, a <= b)
  BIN64I(0x59, I64(a) >= I64(b))
  BIN64I(0x5A, a >= b)
  BINF32(0x5B, uint64_t(a == b))
  BINF32(0x5C, uint64_t(a != b))
  BINF32(0x5D, uint64_t(a < b))
  BINF32(0x5E, uint64_t(a > b))
  BINF32(0x5F, uint64_t(a <= b))
  BINF32(0x60, uint64_t(a >= b))
  BINF64(0x61, uint64_t(a == b))
  BINF64(0x62, uint64_t(a != b))
  BINF64(0x63, uint64_t(a < b))
  BINF64(0x64, uint64_t(a > b))
  BINF64(0x65, uint64_t(a <= b))
  BINF64(0x66, uint64_t(a >= b))
  UN(0x67, U32(a) ? uint64_t(__builtin_clz(U32(a))) : 32)
  UN(0x68, U32(a) ? uint64_t(__builtin_ctz(U32(a))) : 32)
  UN(0x69, uint64_t(__builtin_popcount(U32(a))))
  BIN32(0x6A, a + b)
  BIN32(0x6B, a - b)
  BIN32(0x6C, a * b)
L_0x6D : {
  int32_t a = I32(S(0)), b = I32(S(1));
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  if (a == INT32_MIN && b == -1) TRAP(IntegerOverflow, nullptr);
  S(2) = uint32_t(a / b);
  NEXT_AT(3);
}
L_0x6E : {
  uint32_t a = U32(S(0)), b = U32(S(1));
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  S(2) = a / b;
  NEXT_AT(3);
}
L_0x6F : {
  int32_t a = I32(S(0)), b = I32(S(1));
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  S(2) = b == -1 ? 0 : uint32_t(a % b);
  NEXT_AT(3);
}
L_0x70 : {
  uint32_t a = U32(S(0)), b = U32(S(1));
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  S(2) = a % b;
  NEXT_AT(3);
}
  // by a constant the compiler saw was neither 0 nor -1: nothing can trap
  BINH(0x6D_i, SRC_S, IMM32, DST_S, I32, RES32, a / b)
  BINH(0x6E_i, SRC_S, IMM32, DST_S, U32, RES32, a / b)
  BINH(0x6F_i, SRC_S, IMM32, DST_S, I32, RES32, a % b)
  BINH(0x70_i, SRC_S, IMM32, DST_S, U32, RES32, a % b)
  BIN32(0x71, a & b)
  BIN32(0x72, a | b)
  BIN32(0x73, a ^ b)
  BIN32(0x74, a << (b & 31))
  BIN32(0x75, uint32_t(int32_t(a) >> (b & 31)))
  BIN32(0x76, a >> (b & 31))
  BIN32(0x77, rotl32(a, b))
  BIN32(0x78, rotr32(a, b))
  // ---- i64 ----
  UN(0x79, a ? uint64_t(__builtin_clzll(a)) : 64)
  UN(0x7A, a ? uint64_t(__builtin_ctzll(a)) : 64)
  UN(0x7B, uint64_t(__builtin_popcountll(a)))
  BIN64I(0x7C, a + b)
  BIN64I(0x7D, a - b)
  BIN64I(0x7E, a * b)
L_0x7F : {
  int64_t a = I64(S(0)), b = I64(S(1));
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  if (a == INT64_MIN && b == -1) TRAP(IntegerOverflow, nullptr);
  S(2) = uint64_t(a / b);
  NEXT_AT(3);
}
L_0x80 : {
  uint64_t a = S(0), b = S(1);
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  S(2) = a / b;
  NEXT_AT(3);
}
L_0x81 : {
  int64_t a = I64(S(0)), b = I64(S(1));
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  S(2) = b == -1 ? 0 : uint64_t(a % b);
  NEXT_AT(3);
}
L_0x82 : {
  uint64_t a = S(0), b = S(1);
  if (b == 0) TRAP(IntegerDivideByZero, nullptr);
  S(2) = a % b;
  NEXT_AT(3);
}
  BIN64I(0x83, a & b)
  BIN64I(0x84, a | b)
  BIN64I(0x85, a ^ b)
  BIN64I(0x86, a << (b & 63))
  BIN64I(0x87, uint64_t(I64(a) >> (b & 63)))
  BIN64I(0x88, a >> (b & 63))
  BIN64I(0x89, rotl64(a, b))
  BIN64I(0x8A, rotr64(a, b))
  // ---- f32 ---- (abs/neg/copysign act on the sign bit only, NaN payloads untouched)
  UN(0x8B, a & 0x7FFFFFFFu)
  UN(0x8C, (a ^ 0x80000000u) & 0xFFFFFFFFu)
  UN(0x8D, bits(quiet_round(f32(a), std::ceil(f32(a)))))
  UN(0x8E, bits(quiet_round(f32(a), std::floor(f32(a)))))
  UN(0x8F, bits(quiet_round(f32(a), std::trunc(f32(a)))))
  UN(0x90, bits(std::nearbyint(f32(a))))
  UN(0x91, bits(std::sqrt(f32(a))))
  BINF32A(0x92, bits(a + b))
  BINF32A(0x93, bits(a - b))
  BINF32A(0x94, bits(a * b))
  BINF32A(0x95, bits(a / b))
  BIN64(0x96, fmin32(a, b))
  BIN64(0x97, fmax32(a, b))
  BIN64(0x98, (a & 0x7FFFFFFFu) | (b & 0x80000000u))
  // ---- f64 ----
  UN(0x99, a & 0x7FFFFFFFFFFFFFFFull)
  UN(0x9A, a ^ 0x8000000000000000ull)
  UN(0x9B, bits(quiet_round(f64(a), std::ceil(f64(a)))))
  UN(0x9C, bits(quiet_round(f64(a), std::floor(f64(a)))))
  UN(0x9D, bits(quiet_round(f64(a), std::trunc(f64(a)))))
  UN(0x9E, bits(std::nearbyint(f64(a))))
  UN(0x9F, bits(std::sqrt(f64(a))))
  BINF64A(0xA0, bits(a + b))
  BINF64A(0xA1, bits(a - b))
  BINF64A(0xA2, bits(a * b))
  BINF64A(0xA3, bits(a / b))
  BIN64(0xA4, fmin64(a, b))
  BIN64(0xA5, fmax64(a, b))
  BIN64(0xA6, (a & 0x7FFFFFFFFFFFFFFFull) | (b & 0x8000000000000000ull))
  // ---- conversions ----
  UN(0xA7, a & 0xFFFFFFFFu)
#define TRUNC(name, F, conv, lo, hi, IT, W)                         \
  L_##name : {                                                  \
    F x = conv(S(0));                                           \
    if (x != x) TRAP(InvalidConversion, nullptr);               \
    if (!(x > (lo) && x < (hi))) TRAP(IntegerOverflow, nullptr); \
    S(1) = W(IT(x));                                            \
    NEXT_AT(2);                                                     \
  }
  TRUNC(0xA8, float, f32, -2147483904.0f, 2147483648.0f, int32_t, uint32_t)
  TRUNC(0xA9, float, f32, -1.0f, 4294967296.0f, uint32_t, uint32_t)
  TRUNC(0xAA, double, f64, -2147483649.0, 2147483648.0, int32_t, uint32_t)
  TRUNC(0xAB, double, f64, -1.0, 4294967296.0, uint32_t, uint32_t)
  UN(0xAC, uint64_t(int64_t(I32(a))))
  UN(0xAD, a & 0xFFFFFFFFu)
  TRUNC(0xAE, float, f32, -9223373136366403584.0f, 9223372036854775808.0f, int64_t, uint64_t)
  TRUNC(0xAF, float, f32, -1.0f, 18446744073709551616.0f, uint64_t, uint64_t)
  TRUNC(0xB0, double, f64, -9223372036854777856.0, 9223372036854775808.0, int64_t, uint64_t)
  TRUNC(0xB1, double, f64, -1.0, 18446744073709551616.0, uint64_t, uint64_t)
  UN(0xB2, bits(float(I32(a))))
  UN(0xB3, bits(float(U32(a))))
  UN(0xB4, bits(float(I64(a))))
  UN(0xB5, bits(float(a)))
  UN(0xB6, bits(float(f64(a))))
  UN(0xB7, bits(double(I32(a))))
  UN(0xB8, bits(double(U32(a))))
  UN(0xB9, bits(double(I64(a))))
  UN(0xBA, bits(double(a)))
  UN(0xBB, bits(double(f32(a))))
  UN(0xC0, uint32_t(int32_t(int8_t(a))))
  UN(0xC1, uint32_t(int32_t(int16_t(a))))
  UN(0xC2, uint64_t(int64_t(int8_t(a))))
  UN(0xC3, uint64_t(int64_t(int16_t(a))))
  UN(0xC4, uint64_t(int64_t(int32_t(a))))
  UN(fc0, uint32_t(sat<int32_t>(f32(a), -2147483904.0f, 2147483648.0f, INT32_MIN, INT32_MAX)))
  UN(fc1, sat<uint32_t>(f32(a), -1.0f, 4294967296.0f, 0u, UINT32_MAX))
  UN(fc2, uint32_t(sat<int32_t>(f64(a), -2147483649.0, 2147483648.0, INT32_MIN, INT32_MAX)))
  UN(fc3, sat<uint32_t>(f64(a), -1.0, 4294967296.0, 0u, UINT32_MAX))
  UN(fc4, uint64_t(sat<int64_t>(f32(a), -9223373136366403584.0f, 9223372036854775808.0f, INT64_MIN, INT64_MAX)))
  UN(fc5, sat<uint64_t>(f32(a), -1.0f, 18446744073709551616.0f, uint64_t(0), UINT64_MAX))
  UN(fc6, uint64_t(sat<int64_t>(f64(a), -9223372036854777856.0, 9223372036854775808.0, INT64_MIN, INT64_MAX)))
  UN(fc7, sat<uint64_t>(f64(a), -1.0, 18446744073709551616.0, uint64_t(0), UINT64_MAX))

  // ---- bulk memory and tables ----
L_mem_init : {
  uint64_t* sp = fp + *pc++;
  uint32_t seg = *pc++;
  uint32_t n = U32(sp[-1]), src = U32(sp[-2]), dst = U32(sp[-3]);
  sp -= 3;
  const DataSeg& d = inst->module->datas[seg];
  uint32_t len = inst->data_dropped[seg] ? 0 : d.len;
  if (uint64_t(src) + n > len || uint64_t(dst) + n > memsize) goto trap_oob;
  if (n) std::memcpy(mem + dst, inst->module->data_bytes.p + d.first + src, n);
  NEXT();
}
L_data_drop:
  inst->data_dropped[pc[1]] = 1;
  NEXT_AT(2);
L_mem_copy : {
  uint64_t* sp = fp + *pc++;
  uint32_t n = U32(sp[-1]), src = U32(sp[-2]), dst = U32(sp[-3]);
  sp -= 3;
  if (uint64_t(src) + n > memsize || uint64_t(dst) + n > memsize) goto trap_oob;
  if (n) std::memmove(mem + dst, mem + src, n);
  NEXT();
}
L_mem_fill : {
  uint64_t* sp = fp + *pc++;
  uint32_t n = U32(sp[-1]), val = U32(sp[-2]), dst = U32(sp[-3]);
  sp -= 3;
  if (uint64_t(dst) + n > memsize) goto trap_oob;
  if (n) std::memset(mem + dst, int(val & 0xFF), n);
  NEXT();
}
L_table_init : {
  uint64_t* sp = fp + *pc++;
  uint32_t seg = pc[0];
  Table* t = inst->tables[pc[1]];
  pc += 2;
  uint32_t n = U32(sp[-1]), src = U32(sp[-2]), dst = U32(sp[-3]);
  sp -= 3;
  const uint64_t* refs = inst->elem_refs[seg];
  uint32_t len = refs ? inst->module->elems[seg].count : 0;
  if (uint64_t(src) + n > len || uint64_t(dst) + n > t->size) TRAP(TableOutOfBounds, nullptr);
  for (uint32_t i = 0; i < n; i++) t->elems[dst + i] = refs[src + i];
  NEXT();
}
L_elem_drop:
  inst->elem_refs[pc[1]] = nullptr;
  NEXT_AT(2);
L_table_copy : {
  uint64_t* sp = fp + *pc++;
  Table* d = inst->tables[pc[0]];
  Table* st = inst->tables[pc[1]];
  pc += 2;
  uint32_t n = U32(sp[-1]), src = U32(sp[-2]), dst = U32(sp[-3]);
  sp -= 3;
  if (uint64_t(src) + n > st->size || uint64_t(dst) + n > d->size) TRAP(TableOutOfBounds, nullptr);
  if (n) std::memmove(d->elems + dst, st->elems + src, size_t(n) * 8);
  NEXT();
}
L_table_grow : {
  uint64_t* sp = fp + *pc++;
  Table* t = inst->tables[*pc++];
  uint32_t n = U32(sp[-1]);
  uint64_t init = sp[-2];
  --sp;
  uint32_t old;
  sp[-1] = table_grow(s, t, n, init, &old) ? old : 0xFFFFFFFFu;
  NEXT();
}
L_table_size:
  fp[pc[0]] = inst->tables[pc[1]]->size;
  NEXT_AT(2);
L_table_fill : {
  uint64_t* sp = fp + *pc++;
  Table* t = inst->tables[*pc++];
  uint32_t n = U32(sp[-1]), i = U32(sp[-3]);
  uint64_t v = sp[-2];
  sp -= 3;
  if (uint64_t(i) + n > t->size) TRAP(TableOutOfBounds, nullptr);
  for (uint32_t k = 0; k < n; k++) t->elems[i + k] = v;
  NEXT();
}

trap_oob:  // one shared trap site: the bounds checks are in hundreds of handlers
  TRAP(MemoryOutOfBounds, nullptr);
tick_stop:
  if (stop == kStopInterrupted) TRAP(Interrupted, nullptr);
  TRAP(OutOfFuel, nullptr);
done:
  s->fuel = trap.code == TrapCode::OutOfFuel ? 0 : fuel;
  if (trap.ok())
    for (uint32_t i = 0; i < nr; i++) results[i].bits = stack_base[i];
  return trap;
#undef NEXT
#undef S
#undef TRAP
#undef BUDGET
#undef JUMP
#undef RELOAD
}

#ifdef K32_WASM_PROFILE
namespace {
int op_of(int32_t off) {
  const HandlerWords t = handler_words();
  for (uint32_t i = 0; i < op::kCount; i++)
    if (t[i] == off) return int(i);
  return -1;
}
void profile_dump() {
  uint64_t total = 0;
  for (const PairCount& p : prof_single) total += p.n;
  std::fprintf(stderr, "profile: %llu instructions\n", (unsigned long long)total);
  for (;;) {  // every instruction seen, so that a test can show each variant it reaches
    PairCount* best = nullptr;
    for (PairCount& p : prof_single)
      if (p.n && (!best || p.n > best->n)) best = &p;
    if (!best) break;
    std::fprintf(stderr, "  op 0x%03x %6.2f%%\n", op_of(best->b), 100.0 * best->n / total);
    best->n = 0;
  }
  for (int k = 0; k < 40; k++) {
    PairCount* best = nullptr;
    for (PairCount& p : prof_pairs)
      if (p.n && (!best || p.n > best->n)) best = &p;
    if (!best) break;
    std::fprintf(stderr, "  pair 0x%03x 0x%03x %6.2f%%\n", op_of(best->a), op_of(best->b), 100.0 * best->n / total);
    best->n = 0;
  }
}
}  // namespace
#endif

HandlerWords handler_words() {
  Value out{0};
  execute(nullptr, nullptr, nullptr, &out);
  return HandlerWords{reinterpret_cast<const void* const*>(uintptr_t(out.bits))};
}

int32_t HandlerWords::operator[](uint32_t o) const {
  const char* h = static_cast<const char*>(addrs[o < op::kCount ? kHandlerSlots.of[o] : 0]);
#if K32_WASM_ABSOLUTE_DISPATCH
  return int32_t(intptr_t(h));
#else
  return int32_t(h - static_cast<const char*>(addrs[0]));
#endif
}

}  // namespace wasm
}  // namespace k32
