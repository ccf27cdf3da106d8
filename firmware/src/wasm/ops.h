// Internal instruction set of the compiled code (32-bit words: opcode, then immediates).
// Numeric, memory and variable instructions keep their WebAssembly opcode byte; 0xFC-prefixed
// ones are 0x100+sub-opcode; control flow is rewritten into jumps with precomputed stack
// adjustments, so the executor never searches for a block end or a label.
#pragma once
#include <cstdint>

namespace k32 {
namespace wasm {
namespace op {
enum : uint32_t {
  // immediates in brackets; slot numbers are relative to the frame's first local
  kUnreachable = 0x00,
  kDrop = 0x1A,
  kSelect = 0x1B,
  kLocalGet = 0x20,  // [slot]
  kLocalSet = 0x21,  // [slot]
  kLocalTee = 0x22,  // [slot]
  kGlobalGet = 0x23, // [index]
  kGlobalSet = 0x24, // [index]
  kTableGet = 0x25,  // [table]
  kTableSet = 0x26,  // [table]
  kCall = 0x10,          // [function index]
  kCallIndirect = 0x11,  // [type index, table]
  // 0x28..0x3E loads/stores [offset]; 0x3F memory.size; 0x40 memory.grow
  kI32Const = 0x41,  // [bits]
  kI64Const = 0x42,  // [lo, hi]
  kF32Const = 0x43,  // [bits]
  kF64Const = 0x44,  // [lo, hi]
  kRefNull = 0xD0,
  kRefIsNull = 0xD1,
  kRefFunc = 0xD2,  // [function index]
  kFC = 0x100,      // + sub-opcode; memory.init [seg], data.drop [seg], table.init [seg, table],
                    // elem.drop [seg], table.copy [dst, src], table.grow/size/fill [table]
  kJmp = 0x120,       // [target]
  kJmpIf = 0x121,     // [target]            pops the condition
  kJmpUnless = 0x122, // [target]            pops the condition
  kBr = 0x123,        // [target, keep, height]   moves `keep` values down to `height`
  kBrIf = 0x124,      // [target, keep, height]
  kBrTable = 0x125,   // [n, (target, keep, height) x (n+1)]
  kLoop = 0x126,      // loop header: interrupt / fuel check
  kReturn = 0x127,    // [nresults]
  kCount = 0x140,
};
}  // namespace op
}  // namespace wasm
}  // namespace k32
