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
// Numeric, memory and variable instructions keep their WebAssembly opcode byte; 0xFC-prefixed
// ones are 0x100+sub-opcode. "Stack-style" instructions (rare ones) take the slot just above
// their inputs ("top") and work like a stack machine on the canonical slots below it.
#pragma once
#include <cstdint>

namespace k32 {
namespace wasm {
namespace op {
enum : uint32_t {
  kUnreachable = 0x00,
  kCall = 0x10,          // [function index, base slot of the arguments]
  kCallIndirect = 0x11,  // [type index, table, index slot, base slot]
  kSelect = 0x1B,        // [a, b, cond, dst]
  kGlobalGet = 0x23,     // [dst, index]
  kGlobalSet = 0x24,     // [src, index]
  kTableGet = 0x25,      // stack-style [top, table]
  kTableSet = 0x26,      // stack-style [top, table]
  // 0x28..0x35 loads [addr, offset, dst]; 0x36..0x3E stores [addr, value, offset]
  kMemorySize = 0x3F,  // [dst]
  kMemoryGrow = 0x40,  // [delta, dst]
  kI32Const = 0x41,    // [dst, bits]
  kI64Const = 0x42,    // [dst, lo, hi]
  kF32Const = 0x43,    // [dst, bits]
  kF64Const = 0x44,    // [dst, lo, hi]
  // 0x45..0xC4 numeric: unary [a, dst], binary [a, b, dst]
  kRefNull = 0xD0,    // [dst]
  kRefIsNull = 0xD1,  // [a, dst]
  kRefFunc = 0xD2,    // [dst, function index]
  kFC = 0x100,        // + sub-opcode, all stack-style [top, immediates…]
  kJmp = 0x120,       // [target]; taken jumps count towards the interrupt and fuel checks
  kJmpIf = 0x121,     // [cond, target]
  kJmpUnless = 0x122, // [cond, target]
  kBr = 0x123,        // [target, keep, from, to]   moves `keep` slots from..from+keep to `to`
  kBrIf = 0x124,      // [cond, target, keep, from, to]
  kBrTable = 0x125,   // [index slot, n, (target, keep, from, to) x (n+1)]
  kReturn = 0x127,    // [nresults, from]
  kReturn1 = 0x126,   // kReturn of one result: [1, from]
  kCallDirect = 0x12D,  // kCall of a function defined in this module: [function index, base slot]
  kCopy = 0x128,      // [src, dst]
  kCopy2 = 0x129,     // [src, dst, src, dst], in order
  kCopyN = 0x12C,     // [n, (src, dst) x n], in order
  kCopyNJmp = 0x12E,  // kCopyN then kJmp: [n, (src, dst) x n, target] (values moved around a loop)
  // fused sequences (the measured hot spots of compiled C)
  kJmpCmp = 0x130,   // + i32 compare index (eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u): [a, b, target]
  kJmpCmpI = 0x140,  // + compare index: [a, imm, target]
  kWrap = 0x180,     // + (load/store opcode - 0x28), address `x + k` wrapping at 2^32 (a deferred
                     // i32.add folded in): loads [x, k, dst], stores [x, value, k]
  kAbs = 0x160,      // + (load/store opcode - 0x28), constant address: loads [ea, dst], stores [value, ea]
  kImm = 0x200,      // + binary opcode, second operand a constant: [a, imm, dst] (i64: imm sign-extended;
                     // f32: its bits; f64: the bits of an f32 that widens to it exactly)
  kJmpIfA = 0x12A,   // kJmpIf / kJmpUnless with the condition in the accumulator: [cond (unused), target]
  kJmpUnlessA = 0x12B,
  // The accumulator: a value handed from one instruction to the next in a register instead
  // of a slot. When an instruction's operand is the result of the instruction just before
  // it (and no branch lands between them), the producer switches to an "→A" variant that
  // leaves its result in the accumulator only, and the consumer to a variant that reads it
  // from there. A canonical slot is read once, so nothing else misses the value. Variants
  // keep their base instruction's layout (the unused words stay), so the compiler switches
  // them by rewriting the opcode word alone.
  kAcc = 0x300,        // + variant * 64 + acc_index(binary opcode); variants below
  kLoadAcc = 0x500,    // + variant * 16 + (load opcode - 0x28); variants below
  kStoreAcc = 0x570,   // + variant * 16 + (store opcode - 0x36); variants below
  kJmpCmpA = 0x5C0,    // + compare index: [acc, b, target]
  kJmpCmpAI = 0x5D0,   // + compare index: [acc, imm, target]
  kJmpCmpSA = 0x5E0,   // + compare index: [a, acc, target]
  // i32 `a op2 (x op1 imm)` in one instruction (hash rounds: a ^ rotl(x, k), …):
  // + (fuse1_index(op1) * 4 + fuse2_index(op2)) * 2 + (0: result to dst, 1: to the
  // accumulator); [a, x, imm, dst]
  kFuse = 0x5F0,
  // An i32 add-immediate into a slot (`x + k`, how C's `i++` and `p += 4` compile) paired
  // with the instruction after it, which still runs second and sees the add's result:
  kAddJmpCmp = 0x650,   // + compare index, the add's result against a slot: [x, k, dst, b, target]
  kAddJmpCmpI = 0x660,  // + compare index, … against an immediate: [x, k, dst, imm, target]
  kAddLoad = 0x670,     // then an i32.load: [x, k, dst, addr, offset, load dst]
  kAddAdd = 0x671,      // then another add-immediate: [x, k, dst, x2, k2, dst2]
  kAddCopyN = 0x672,    // then copies, in order: [x, k, dst, n, (src, dst) x n]
  kShlAdd = 0x673,
  kAddJmpIf = 0x674,      // then a kJmpIf: [x, k, dst, cond, target]
  kAddJmpUnless = 0x675,  // then a kJmpUnless: [x, k, dst, cond, target]      // i32 `(x << k1) + k2` (an element address in a static array): [x, k1, k2, dst]
  kMulAdd = 0x67E,      // i32 `x * k1 + k2` (linear congruences, string hashes): [x, k1, k2, dst]
  kAddCallDirect = 0x67F,  // an add-immediate then kCallDirect (`f(n - 1)`): [x, k, dst, offset, base]
  // i32.load then a compare-and-jump of the loaded value against a slot (a search loop):
  kLoadJmpCmp = 0x680,  // + compare index: [addr, offset, dst, b, target]
  kAddCopyNJmp = 0x67A,  // kAddCopyN then kJmp: [x, k, dst, n, (src, dst) x n, target]
  // copies (kCopyN, kAddCopyN) then a compare-and-jump on two slots (a loop rotating its
  // variables before its test): + compare index: [n, (src, dst) x n, a, b, target] and
  // [x, k, dst, n, (src, dst) x n, a, b, target]
  kCopyNJmpCmp = 0x690,
  kAddCopyNJmpCmp = 0x6A0,
  // i32 sub/shl/shr_s/shr_u with a constant first operand (`1 << x`, `31 - x`):
  // + rev_index * 2 + (0: to dst, 1: to the accumulator); [imm, b, dst]
  kRevImm = 0x6B0,
  // jump when `a & imm` is zero (+0) or not (+1), a from a slot (+0) or the accumulator (+2)
  // (a flag or character-class test): [a, imm, unused, target]
  kJmpTest = 0x6B8,
  // a u8 load (address `x + k` wrapping at 2^32) then a compare-and-jump of the byte against
  // an immediate (a character test): + compare index; [x, k, dst, imm, target]
  kLoad8JmpCmpI = 0x6C0,
  // select with a constant operand, which the instruction carries (select moves bits, so any
  // constant below 2^32 of any type): + 0 the first ([imm, b, cond, dst]), + 1 the second
  // ([a, imm, cond, dst]), + 2 both
  kSelectImm = 0x6CA,
  kCount = 0x6CD,
};
// Binary variants (operand sources, then result): 0 SS→A, 1 SI→A, 2 AS→S, 3 AS→A, 4 AI→S,
// 5 AI→A, 6 SA→S, 7 SA→A. The plain opcode is SS→S and kImm + opcode is SI→S.
enum BinVariant : uint32_t { kSSA, kSIA, kASS, kASA, kAIS, kAIA, kSAS, kSAA };
// Load variants by form (base [addr, offset, dst], wrap [x, k, dst]).
enum LoadVariant : uint32_t { kBaseAS, kBaseSA, kBaseAA, kWrapAS, kWrapSA, kWrapAA };
// Store variants: the value (V) or the address (Addr) from the accumulator; abs [value, ea].
enum StoreVariant : uint32_t { kBaseV, kWrapV = 2, kWrapAddr, kAbsV };

// The binary opcodes with accumulator variants: i32 compares and arithmetic, f32/f64
// add/sub/mul/div. (i64 operators have immediate forms but no accumulator variants: no
// program of the benchmark set spends even 0.5 % of its instructions in them.) Immediate
// forms of floats are f32 bits; an f64 constant has one only when an f32 holds it exactly,
// as 0.5 or 1000.0 do.
constexpr int acc_index(uint32_t opc) {
  return opc >= 0x46 && opc <= 0x4F   ? int(opc - 0x46)
         : opc >= 0x6A && opc <= 0x6C ? int(opc - 0x6A + 10)
         : opc >= 0x71 && opc <= 0x78 ? int(opc - 0x71 + 13)
         : opc >= 0x92 && opc <= 0x95 ? int(opc - 0x92 + 21)
         : opc >= 0xA0 && opc <= 0xA3 ? int(opc - 0xA0 + 25)
                                      : -1;
}
constexpr int fuse1_index(uint32_t opc) {  // rotl rotr shl shr_u shr_s and xor add
  return opc == 0x77 ? 0 : opc == 0x78 ? 1 : opc == 0x74 ? 2 : opc == 0x76 ? 3 : opc == 0x75 ? 4
         : opc == 0x71 ? 5 : opc == 0x73 ? 6 : opc == 0x6A ? 7 : -1;
}
constexpr int fuse2_index(uint32_t opc) {  // xor add and or (commutative)
  return opc == 0x73 ? 0 : opc == 0x6A ? 1 : opc == 0x71 ? 2 : opc == 0x72 ? 3 : -1;
}
constexpr int rev_index(uint32_t opc) {  // sub shl shr_s shr_u
  return opc == 0x6B ? 0 : opc >= 0x74 && opc <= 0x76 ? int(opc - 0x74 + 1) : -1;
}
constexpr uint32_t acc_op(uint32_t variant, uint32_t opc) { return kAcc + variant * 64 + uint32_t(acc_index(opc)); }
}  // namespace op
}  // namespace wasm
}  // namespace k32
