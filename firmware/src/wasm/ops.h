// Internal instruction set of the compiled code (32-bit words: opcode, then operands).
//
// Slot machine: a function's frame is one array of 64-bit slots, locals first, then one
// slot per WebAssembly operand-stack position (heights are static, so each position has a
// fixed slot). Hot instructions name their operand and result slots explicitly, which lets
// the compiler skip local.get copies (operands read the local's slot directly) and write
// results straight into a local (local.set folded into the producer). Branch targets and
// value moves are precomputed; the executor never searches for a block end.
//
// Operand order: inputs first, then the result slot, then immediates unless noted.
// Numeric, memory and variable instructions keep their WebAssembly opcode byte (opcodes.h);
// 0xFC-prefixed ones are 0x100+sub-opcode. The fused instructions, which do the work of two
// or three of these, are in fused.h. "Stack-style" instructions (rare ones) take the slot
// just above their inputs ("top") and work like a stack machine on the canonical slots
// below it.
#pragma once
#include <cstdint>

#include "opcodes.h"

// The accumulator is an integer register; an f64 operator reading it or writing it moves the
// value between that register and a vector register, about 3 cycles each way on x86-64,
// twice per link of a dependent f64 chain (`x + v / x`): more than the arithmetic. Where GCC
// builds for x86-64 with every handler in the loop, the f64 operators keep their own view of
// the accumulator in a vector register (exec.cpp: `facc`), live only from one handler's end
// to the next one's start. Not in the profiling build, which calls a function there (a call
// may overwrite the register), nor where a cold handler could run, which would not see it.
// Elsewhere it is the accumulator itself: on the boards an f64 is a pair of integer
// registers anyway.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(K32_PORT_FAST_CODE_SECTION) && \
    !defined(K32_WASM_HOT_SPLIT) && !defined(K32_WASM_PROFILE)
#define K32_FACC_XMM 1
#else
#define K32_FACC_XMM 0
#endif

namespace k32 {
namespace wasm {
namespace op {
constexpr uint32_t kCompares = 10;                                        // i32 compares, i32.eq .. i32.ge_u
constexpr uint32_t kAccStride = 29;                                       // binary opcodes with accumulator variants
constexpr uint32_t kLoadStride = opc::kI64Load32U - opc::kI32Load + 1;    // loads
constexpr uint32_t kStoreStride = opc::kI64Store32 - opc::kI32Store + 1;  // stores
constexpr uint32_t kMemOps = opc::kI64Store32 - opc::kI32Load + 1;        // loads and stores
enum : uint32_t {
  kUnreachable = opc::kUnreachable,
  kCall = opc::kCall,                  // [function index, base slot of the arguments]
  kCallIndirect = opc::kCallIndirect,  // [type index, table, index slot, base slot]
  kSelect = opc::kSelect,              // [a, b, cond, dst]
  kGlobalGet = opc::kGlobalGet,        // [dst, index]
  kGlobalSet = opc::kGlobalSet,        // [src, index]
  kTableGet = opc::kTableGet,          // stack-style [top, table]
  kTableSet = opc::kTableSet,          // stack-style [top, table]
  // loads [addr, offset, dst]; stores [addr, value, offset]
  kMemorySize = opc::kMemorySize,  // [dst]
  kMemoryGrow = opc::kMemoryGrow,  // [delta, dst]
  kI32Const = opc::kI32Const,      // [dst, bits]
  kI64Const = opc::kI64Const,      // [dst, lo, hi]
  kF32Const = opc::kF32Const,      // [dst, bits]
  kF64Const = opc::kF64Const,      // [dst, lo, hi]
  // numeric: unary [a, dst], binary [a, b, dst]
  kRefNull = opc::kRefNull,      // [dst]
  kRefIsNull = opc::kRefIsNull,  // [a, dst]
  kRefFunc = opc::kRefFunc,      // [dst, function index]
  // Internal instructions are numbered in blocks from here, each block as long as its
  // variants need (the executor's opcode index has an entry for every number below kCount).
  kFC = 0x100,                 // + sub-opcode: saturating truncations [a, dst], the rest stack-style [top, immediates…]
  kJmp = kFC + opc::kFCCount,  // [target]; taken jumps count towards the interrupt and fuel checks
  kJmpIf,                      // [cond, target]
  kJmpUnless,                  // [cond, target]
  kBr,                         // [target, keep, from, to]   moves `keep` slots from..from+keep to `to`
  kBrIf,                       // [cond, target, keep, from, to]
  kBrTable,                    // [index slot, n, (target, keep, from, to) x (n+1)]
  kReturn1,                    // kReturn of one result: [1, from]
  kReturn,                     // [nresults, from]
  kCopy,                       // [src, dst]
  kCopy2,                      // [src, dst, src, dst], in order
  kJmpIfA,                     // kJmpIf / kJmpUnless with the condition in the accumulator: [cond (unused), target]
  kJmpUnlessA,
  kCopyN,       // [n, (src, dst) x n], in order
  kCallDirect,  // kCall of a function defined in this module: [offset to its body, base slot]
  kBrTableA,    // kBrTable with the index in the accumulator (a switch on a value just computed)
  kReturn1A,    // kReturn1 of the accumulator (a result computed just before): [1, from (unused)]
  // Compare-and-jump: an i32 compare whose only use is a conditional jump, as one
  // instruction: + compare index (opc::kI32Eq .. kI32GeU in order: eq ne lt_s lt_u gt_s gt_u
  // le_s le_u ge_s ge_u), [a, b, target] and [a, imm, target]
  kJmpCmp,
  kJmpCmpI = kJmpCmp + kCompares,
  // + (load/store opcode - 0x28), constant address: loads [ea, dst], stores [value, ea]
  kAbs = kJmpCmpI + kCompares,
  // + (load/store opcode - 0x28), address `x + k` wrapping at 2^32 (a deferred i32.add
  // folded in): loads [x, k, dst], stores [x, value, k]
  kWrap = kAbs + kMemOps,
  // + binary opcode, second operand a constant: [a, imm, dst] (i64: imm sign-extended; f32:
  // its bits; f64: the bits of an f32 that widens to it exactly); binary opcodes with an
  // immediate form are i32.eq (0x46) .. f64.div (0xA3)
  kImm = kWrap + kMemOps - opc::kI32Eq,
  kImmEnd = kImm + opc::kF64Div + 1,
  // The accumulator: a value handed from one instruction to the next in a register instead
  // of a slot. When an instruction's operand is the result of the instruction just before
  // it (and no branch lands between them), the producer switches to an "→A" variant that
  // leaves its result in the accumulator only, and the consumer to a variant that reads it
  // from there. A canonical slot is read once, so nothing else misses the value. Variants
  // keep their base instruction's layout (the unused words stay), so the compiler switches
  // them by rewriting the opcode word alone.
  kAcc = kImmEnd,                          // + variant * kAccStride + opc::acc_index(binary opcode); variants below
  kLoadAcc = kAcc + 8 * kAccStride,        // + variant * kLoadStride + (load opcode - 0x28)
  kStoreAcc = kLoadAcc + 6 * kLoadStride,  // + variant * kStoreStride + (store opcode - 0x36)
  // + form * kStoreStride + (store opcode - 0x36): a store of up to 4 bytes whose value is
  // a constant the instruction carries: [addr, imm, offset], [x, imm, k], [imm, ea]
  kStoreImm = kStoreAcc + 5 * kStoreStride,
  // (an accumulator first operand against a slot is the swapped compare of kJmpCmpSA)
  kJmpCmpAI = kStoreImm + 3 * kStoreStride,  // + compare index: [acc, imm, target]
  kJmpCmpSA = kJmpCmpAI + kCompares,         // + compare index: [a, acc, target]
  kFusedBase = kJmpCmpSA + kCompares,        // the fused instructions (fused.h) from here
};
static_assert(opc::acc_index(opc::kF64Div) + 1 == int(kAccStride), "every accumulator operator has its variants");
// Operand words of the numeric instructions, counted from the first word after the opcode.
enum BinaryWords : uint32_t { kBinA, kBinB, kBinDst, kBinEnd };  // kImm forms: B is the immediate
enum UnaryWords : uint32_t { kUnA, kUnDst, kUnEnd };
// Binary variants (operand sources, then result): 0 SS→A, 1 SI→A, 2 AS→S, 3 AS→A, 4 AI→S,
// 5 AI→A, 6 SA→S, 7 SA→A. The plain opcode is SS→S and kImm + opcode is SI→S.
enum BinVariant : uint32_t { kSSA, kSIA, kASS, kASA, kAIS, kAIA, kSAS, kSAA };
// Load variants by form (base [addr, offset, dst], wrap [x, k, dst]).
enum LoadVariant : uint32_t { kBaseAS, kBaseSA, kBaseAA, kWrapAS, kWrapSA, kWrapAA };
// Store variants: the value (V) or the address (Addr) from the accumulator; abs [value, ea].
enum StoreVariant : uint32_t { kBaseV, kWrapV = 2, kWrapAddr, kAbsV };
// Store forms with a constant value, by address form.
enum StoreImmForm : uint32_t { kImmBase, kImmWrap, kImmAbs };

// The binary opcodes with accumulator variants (opcodes.h: forms SIA): i32 compares and
// arithmetic, f32/f64 add/sub/mul/div. (i64 operators have immediate forms but no
// accumulator variants: no program of the benchmark set spends even 0.5 % of its
// instructions in them.) Immediate forms of floats are f32 bits; an f64 constant has one
// only when an f32 holds it exactly, as 0.5 or 1000.0 do.
constexpr uint32_t acc_op(uint32_t variant, uint32_t opc) { return kAcc + variant * kAccStride + uint32_t(opc::acc_index(opc)); }
constexpr uint32_t load_acc(uint32_t variant, uint32_t load) { return kLoadAcc + variant * kLoadStride + (load - opc::kI32Load); }
constexpr uint32_t store_acc(uint32_t variant, uint32_t store) {
  return kStoreAcc + variant * kStoreStride + (store - opc::kI32Store);
}
constexpr uint32_t store_imm(uint32_t form, uint32_t store) { return kStoreImm + form * kStoreStride + (store - opc::kI32Store); }
static_assert(opc::kI32GeU - opc::kI32Eq + 1 == kCompares, "the compare-and-jump forms follow the i32 compares");
}  // namespace op
}  // namespace wasm
}  // namespace k32

// The compare indices, for the executor's handler lists.
#define K32_FOR_EACH_COMPARE_INDEX(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9)
