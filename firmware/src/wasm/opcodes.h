// The WebAssembly instruction set as one table, read by every stage of the interpreter: the
// loader (which opcodes may appear in a constant expression), the validator and compiler
// (operand and result types, immediate forms, the group whose file compiles it) and the
// executor (the handler that runs it and which of its variants exist, ops.h).
//
//   X(Name, byte, group, in1, in2, out, forms, handler)
//
// group    Control, Parametric, Variable, Memory, Constant, Numeric, Reference or Prefix: the
//          compiler compiles each group in its own file (compile_<group>.inc).
// in1 in2 out
//          operand and result types of numeric and memory instructions; `_` is none (or a type
//          the instruction's immediates decide). A load takes its address as in1; a store its
//          address as in1 and its value as in2.
// forms    what the executor has for it:
//            N      nothing of its own: the compiler turns it into other instructions
//            R      no code at all (a reinterpretation keeps the operand's bits)
//            S      one handler on operand slots
//            SI     … and a form whose second operand is an immediate
//            SID    … but only for a divisor the compiler saw cannot trap
//            SIC    … and it commutes, so a constant first operand becomes the immediate
//            SIA    … and the accumulator variants (ops.h); SIAC both
//            LoadN  every address form (slot + offset, constant, `x + k`) and accumulator
//            StoreN variant of a load or store whose natural alignment is 2^N bytes
// handler  the executor's label (L_<handler>); instructions with the same bit-level effect
//          share one (f32.load is i32.load's, i64.store32 is i32.store's).
#pragma once
#include <cstdint>

// Kept out of clang-format: the tables are aligned by column, one instruction a row.
// clang-format off
#define K32_WASM_OPCODES(X) \
  X(Unreachable,        0x00, Control,    _,   _,   _,    S,     unreachable) \
  X(Nop,                0x01, Control,    _,   _,   _,    N,     _) \
  X(Block,              0x02, Control,    _,   _,   _,    N,     _) \
  X(Loop,               0x03, Control,    _,   _,   _,    N,     _) \
  X(If,                 0x04, Control,    _,   _,   _,    N,     _) \
  X(Else,               0x05, Control,    _,   _,   _,    N,     _) \
  X(End,                0x0B, Control,    _,   _,   _,    N,     _) \
  X(Br,                 0x0C, Control,    _,   _,   _,    N,     _) \
  X(BrIf,               0x0D, Control,    _,   _,   _,    N,     _) \
  X(BrTable,            0x0E, Control,    _,   _,   _,    N,     _) \
  X(Return,             0x0F, Control,    _,   _,   _,    N,     _) \
  X(Call,               0x10, Control,    _,   _,   _,    S,     call) \
  X(CallIndirect,       0x11, Control,    _,   _,   _,    S,     call_indirect) \
  X(Drop,               0x1A, Parametric, _,   _,   _,    N,     _) \
  X(Select,             0x1B, Parametric, _,   _,   _,    S,     select) \
  X(SelectT,            0x1C, Parametric, _,   _,   _,    N,     _) \
  X(LocalGet,           0x20, Variable,   _,   _,   _,    N,     _) \
  X(LocalSet,           0x21, Variable,   _,   _,   _,    N,     _) \
  X(LocalTee,           0x22, Variable,   _,   _,   _,    N,     _) \
  X(GlobalGet,          0x23, Variable,   _,   _,   _,    S,     global_get) \
  X(GlobalSet,          0x24, Variable,   _,   _,   _,    S,     global_set) \
  X(TableGet,           0x25, Variable,   _,   _,   _,    S,     table_get) \
  X(TableSet,           0x26, Variable,   _,   _,   _,    S,     table_set) \
  X(I32Load,            0x28, Memory,     I32, _,   I32,  Load2, I32Load) \
  X(I64Load,            0x29, Memory,     I32, _,   I64,  Load3, I64Load) \
  X(F32Load,            0x2A, Memory,     I32, _,   F32,  Load2, I32Load) \
  X(F64Load,            0x2B, Memory,     I32, _,   F64,  Load3, I64Load) \
  X(I32Load8S,          0x2C, Memory,     I32, _,   I32,  Load0, I32Load8S) \
  X(I32Load8U,          0x2D, Memory,     I32, _,   I32,  Load0, I32Load8U) \
  X(I32Load16S,         0x2E, Memory,     I32, _,   I32,  Load1, I32Load16S) \
  X(I32Load16U,         0x2F, Memory,     I32, _,   I32,  Load1, I32Load16U) \
  X(I64Load8S,          0x30, Memory,     I32, _,   I64,  Load0, I64Load8S) \
  X(I64Load8U,          0x31, Memory,     I32, _,   I64,  Load0, I64Load8U) \
  X(I64Load16S,         0x32, Memory,     I32, _,   I64,  Load1, I64Load16S) \
  X(I64Load16U,         0x33, Memory,     I32, _,   I64,  Load1, I64Load16U) \
  X(I64Load32S,         0x34, Memory,     I32, _,   I64,  Load2, I64Load32S) \
  X(I64Load32U,         0x35, Memory,     I32, _,   I64,  Load2, I64Load32U) \
  X(I32Store,           0x36, Memory,     I32, I32, _,    Store2, I32Store) \
  X(I64Store,           0x37, Memory,     I32, I64, _,    Store3, I64Store) \
  X(F32Store,           0x38, Memory,     I32, F32, _,    Store2, I32Store) \
  X(F64Store,           0x39, Memory,     I32, F64, _,    Store3, I64Store) \
  X(I32Store8,          0x3A, Memory,     I32, I32, _,    Store0, I32Store8) \
  X(I32Store16,         0x3B, Memory,     I32, I32, _,    Store1, I32Store16) \
  X(I64Store8,          0x3C, Memory,     I32, I64, _,    Store0, I32Store8) \
  X(I64Store16,         0x3D, Memory,     I32, I64, _,    Store1, I32Store16) \
  X(I64Store32,         0x3E, Memory,     I32, I64, _,    Store2, I32Store) \
  X(MemorySize,         0x3F, Memory,     _,   _,   I32,  S,     MemorySize) \
  X(MemoryGrow,         0x40, Memory,     I32, _,   I32,  S,     MemoryGrow) \
  X(I32Const,           0x41, Constant,   _,   _,   I32,  S,     i32_const) \
  X(I64Const,           0x42, Constant,   _,   _,   I64,  S,     i64_const) \
  X(F32Const,           0x43, Constant,   _,   _,   F32,  S,     i32_const) \
  X(F64Const,           0x44, Constant,   _,   _,   F64,  S,     i64_const) \
  X(I32Eqz,             0x45, Numeric,    I32, _,   I32,  S,     I32Eqz) \
  X(I32Eq,              0x46, Numeric,    I32, I32, I32,  SIAC,  I32Eq) \
  X(I32Ne,              0x47, Numeric,    I32, I32, I32,  SIAC,  I32Ne) \
  X(I32LtS,             0x48, Numeric,    I32, I32, I32,  SIA,   I32LtS) \
  X(I32LtU,             0x49, Numeric,    I32, I32, I32,  SIA,   I32LtU) \
  X(I32GtS,             0x4A, Numeric,    I32, I32, I32,  SIA,   I32GtS) \
  X(I32GtU,             0x4B, Numeric,    I32, I32, I32,  SIA,   I32GtU) \
  X(I32LeS,             0x4C, Numeric,    I32, I32, I32,  SIA,   I32LeS) \
  X(I32LeU,             0x4D, Numeric,    I32, I32, I32,  SIA,   I32LeU) \
  X(I32GeS,             0x4E, Numeric,    I32, I32, I32,  SIA,   I32GeS) \
  X(I32GeU,             0x4F, Numeric,    I32, I32, I32,  SIA,   I32GeU) \
  X(I64Eqz,             0x50, Numeric,    I64, _,   I32,  S,     I64Eqz) \
  X(I64Eq,              0x51, Numeric,    I64, I64, I32,  SIC,   I64Eq) \
  X(I64Ne,              0x52, Numeric,    I64, I64, I32,  SIC,   I64Ne) \
  X(I64LtS,             0x53, Numeric,    I64, I64, I32,  SI,    I64LtS) \
  X(I64LtU,             0x54, Numeric,    I64, I64, I32,  SI,    I64LtU) \
  X(I64GtS,             0x55, Numeric,    I64, I64, I32,  SI,    I64GtS) \
  X(I64GtU,             0x56, Numeric,    I64, I64, I32,  SI,    I64GtU) \
  X(I64LeS,             0x57, Numeric,    I64, I64, I32,  SI,    I64LeS) \
  X(I64LeU,             0x58, Numeric,    I64, I64, I32,  SI,    I64LeU) \
  X(I64GeS,             0x59, Numeric,    I64, I64, I32,  SI,    I64GeS) \
  X(I64GeU,             0x5A, Numeric,    I64, I64, I32,  SI,    I64GeU) \
  X(F32Eq,              0x5B, Numeric,    F32, F32, I32,  SIC,   F32Eq) \
  X(F32Ne,              0x5C, Numeric,    F32, F32, I32,  SIC,   F32Ne) \
  X(F32Lt,              0x5D, Numeric,    F32, F32, I32,  SI,    F32Lt) \
  X(F32Gt,              0x5E, Numeric,    F32, F32, I32,  SI,    F32Gt) \
  X(F32Le,              0x5F, Numeric,    F32, F32, I32,  SI,    F32Le) \
  X(F32Ge,              0x60, Numeric,    F32, F32, I32,  SI,    F32Ge) \
  X(F64Eq,              0x61, Numeric,    F64, F64, I32,  SIC,   F64Eq) \
  X(F64Ne,              0x62, Numeric,    F64, F64, I32,  SIC,   F64Ne) \
  X(F64Lt,              0x63, Numeric,    F64, F64, I32,  SI,    F64Lt) \
  X(F64Gt,              0x64, Numeric,    F64, F64, I32,  SI,    F64Gt) \
  X(F64Le,              0x65, Numeric,    F64, F64, I32,  SI,    F64Le) \
  X(F64Ge,              0x66, Numeric,    F64, F64, I32,  SI,    F64Ge) \
  X(I32Clz,             0x67, Numeric,    I32, _,   I32,  S,     I32Clz) \
  X(I32Ctz,             0x68, Numeric,    I32, _,   I32,  S,     I32Ctz) \
  X(I32Popcnt,          0x69, Numeric,    I32, _,   I32,  S,     I32Popcnt) \
  X(I32Add,             0x6A, Numeric,    I32, I32, I32,  SIAC,  I32Add) \
  X(I32Sub,             0x6B, Numeric,    I32, I32, I32,  SIA,   I32Sub) \
  X(I32Mul,             0x6C, Numeric,    I32, I32, I32,  SIAC,  I32Mul) \
  X(I32DivS,            0x6D, Numeric,    I32, I32, I32,  SID,   I32DivS) \
  X(I32DivU,            0x6E, Numeric,    I32, I32, I32,  SID,   I32DivU) \
  X(I32RemS,            0x6F, Numeric,    I32, I32, I32,  SID,   I32RemS) \
  X(I32RemU,            0x70, Numeric,    I32, I32, I32,  SID,   I32RemU) \
  X(I32And,             0x71, Numeric,    I32, I32, I32,  SIAC,  I32And) \
  X(I32Or,              0x72, Numeric,    I32, I32, I32,  SIAC,  I32Or) \
  X(I32Xor,             0x73, Numeric,    I32, I32, I32,  SIAC,  I32Xor) \
  X(I32Shl,             0x74, Numeric,    I32, I32, I32,  SIA,   I32Shl) \
  X(I32ShrS,            0x75, Numeric,    I32, I32, I32,  SIA,   I32ShrS) \
  X(I32ShrU,            0x76, Numeric,    I32, I32, I32,  SIA,   I32ShrU) \
  X(I32Rotl,            0x77, Numeric,    I32, I32, I32,  SIA,   I32Rotl) \
  X(I32Rotr,            0x78, Numeric,    I32, I32, I32,  SIA,   I32Rotr) \
  X(I64Clz,             0x79, Numeric,    I64, _,   I64,  S,     I64Clz) \
  X(I64Ctz,             0x7A, Numeric,    I64, _,   I64,  S,     I64Ctz) \
  X(I64Popcnt,          0x7B, Numeric,    I64, _,   I64,  S,     I64Popcnt) \
  X(I64Add,             0x7C, Numeric,    I64, I64, I64,  SIC,   I64Add) \
  X(I64Sub,             0x7D, Numeric,    I64, I64, I64,  SI,    I64Sub) \
  X(I64Mul,             0x7E, Numeric,    I64, I64, I64,  SIC,   I64Mul) \
  X(I64DivS,            0x7F, Numeric,    I64, I64, I64,  S,     I64DivS) \
  X(I64DivU,            0x80, Numeric,    I64, I64, I64,  S,     I64DivU) \
  X(I64RemS,            0x81, Numeric,    I64, I64, I64,  S,     I64RemS) \
  X(I64RemU,            0x82, Numeric,    I64, I64, I64,  S,     I64RemU) \
  X(I64And,             0x83, Numeric,    I64, I64, I64,  SIC,   I64And) \
  X(I64Or,              0x84, Numeric,    I64, I64, I64,  SIC,   I64Or) \
  X(I64Xor,             0x85, Numeric,    I64, I64, I64,  SIC,   I64Xor) \
  X(I64Shl,             0x86, Numeric,    I64, I64, I64,  SI,    I64Shl) \
  X(I64ShrS,            0x87, Numeric,    I64, I64, I64,  SI,    I64ShrS) \
  X(I64ShrU,            0x88, Numeric,    I64, I64, I64,  SI,    I64ShrU) \
  X(I64Rotl,            0x89, Numeric,    I64, I64, I64,  SI,    I64Rotl) \
  X(I64Rotr,            0x8A, Numeric,    I64, I64, I64,  SI,    I64Rotr) \
  X(F32Abs,             0x8B, Numeric,    F32, _,   F32,  S,     F32Abs) \
  X(F32Neg,             0x8C, Numeric,    F32, _,   F32,  S,     F32Neg) \
  X(F32Ceil,            0x8D, Numeric,    F32, _,   F32,  S,     F32Ceil) \
  X(F32Floor,           0x8E, Numeric,    F32, _,   F32,  S,     F32Floor) \
  X(F32Trunc,           0x8F, Numeric,    F32, _,   F32,  S,     F32Trunc) \
  X(F32Nearest,         0x90, Numeric,    F32, _,   F32,  S,     F32Nearest) \
  X(F32Sqrt,            0x91, Numeric,    F32, _,   F32,  S,     F32Sqrt) \
  X(F32Add,             0x92, Numeric,    F32, F32, F32,  SIAC,  F32Add) \
  X(F32Sub,             0x93, Numeric,    F32, F32, F32,  SIA,   F32Sub) \
  X(F32Mul,             0x94, Numeric,    F32, F32, F32,  SIAC,  F32Mul) \
  X(F32Div,             0x95, Numeric,    F32, F32, F32,  SIA,   F32Div) \
  X(F32Min,             0x96, Numeric,    F32, F32, F32,  S,     F32Min) \
  X(F32Max,             0x97, Numeric,    F32, F32, F32,  S,     F32Max) \
  X(F32Copysign,        0x98, Numeric,    F32, F32, F32,  S,     F32Copysign) \
  X(F64Abs,             0x99, Numeric,    F64, _,   F64,  S,     F64Abs) \
  X(F64Neg,             0x9A, Numeric,    F64, _,   F64,  S,     F64Neg) \
  X(F64Ceil,            0x9B, Numeric,    F64, _,   F64,  S,     F64Ceil) \
  X(F64Floor,           0x9C, Numeric,    F64, _,   F64,  S,     F64Floor) \
  X(F64Trunc,           0x9D, Numeric,    F64, _,   F64,  S,     F64Trunc) \
  X(F64Nearest,         0x9E, Numeric,    F64, _,   F64,  S,     F64Nearest) \
  X(F64Sqrt,            0x9F, Numeric,    F64, _,   F64,  S,     F64Sqrt) \
  X(F64Add,             0xA0, Numeric,    F64, F64, F64,  SIAC,  F64Add) \
  X(F64Sub,             0xA1, Numeric,    F64, F64, F64,  SIA,   F64Sub) \
  X(F64Mul,             0xA2, Numeric,    F64, F64, F64,  SIAC,  F64Mul) \
  X(F64Div,             0xA3, Numeric,    F64, F64, F64,  SIA,   F64Div) \
  X(F64Min,             0xA4, Numeric,    F64, F64, F64,  S,     F64Min) \
  X(F64Max,             0xA5, Numeric,    F64, F64, F64,  S,     F64Max) \
  X(F64Copysign,        0xA6, Numeric,    F64, F64, F64,  S,     F64Copysign) \
  X(I32WrapI64,         0xA7, Numeric,    I64, _,   I32,  S,     I32WrapI64) \
  X(I32TruncF32S,       0xA8, Numeric,    F32, _,   I32,  S,     I32TruncF32S) \
  X(I32TruncF32U,       0xA9, Numeric,    F32, _,   I32,  S,     I32TruncF32U) \
  X(I32TruncF64S,       0xAA, Numeric,    F64, _,   I32,  S,     I32TruncF64S) \
  X(I32TruncF64U,       0xAB, Numeric,    F64, _,   I32,  S,     I32TruncF64U) \
  X(I64ExtendI32S,      0xAC, Numeric,    I32, _,   I64,  S,     I64ExtendI32S) \
  X(I64ExtendI32U,      0xAD, Numeric,    I32, _,   I64,  S,     I64ExtendI32U) \
  X(I64TruncF32S,       0xAE, Numeric,    F32, _,   I64,  S,     I64TruncF32S) \
  X(I64TruncF32U,       0xAF, Numeric,    F32, _,   I64,  S,     I64TruncF32U) \
  X(I64TruncF64S,       0xB0, Numeric,    F64, _,   I64,  S,     I64TruncF64S) \
  X(I64TruncF64U,       0xB1, Numeric,    F64, _,   I64,  S,     I64TruncF64U) \
  X(F32ConvertI32S,     0xB2, Numeric,    I32, _,   F32,  S,     F32ConvertI32S) \
  X(F32ConvertI32U,     0xB3, Numeric,    I32, _,   F32,  S,     F32ConvertI32U) \
  X(F32ConvertI64S,     0xB4, Numeric,    I64, _,   F32,  S,     F32ConvertI64S) \
  X(F32ConvertI64U,     0xB5, Numeric,    I64, _,   F32,  S,     F32ConvertI64U) \
  X(F32DemoteF64,       0xB6, Numeric,    F64, _,   F32,  S,     F32DemoteF64) \
  X(F64ConvertI32S,     0xB7, Numeric,    I32, _,   F64,  S,     F64ConvertI32S) \
  X(F64ConvertI32U,     0xB8, Numeric,    I32, _,   F64,  S,     F64ConvertI32U) \
  X(F64ConvertI64S,     0xB9, Numeric,    I64, _,   F64,  S,     F64ConvertI64S) \
  X(F64ConvertI64U,     0xBA, Numeric,    I64, _,   F64,  S,     F64ConvertI64U) \
  X(F64PromoteF32,      0xBB, Numeric,    F32, _,   F64,  S,     F64PromoteF32) \
  X(I32ReinterpretF32,  0xBC, Numeric,    F32, _,   I32,  R,     I32ReinterpretF32) \
  X(I64ReinterpretF64,  0xBD, Numeric,    F64, _,   I64,  R,     I64ReinterpretF64) \
  X(F32ReinterpretI32,  0xBE, Numeric,    I32, _,   F32,  R,     F32ReinterpretI32) \
  X(F64ReinterpretI64,  0xBF, Numeric,    I64, _,   F64,  R,     F64ReinterpretI64) \
  X(I32Extend8S,        0xC0, Numeric,    I32, _,   I32,  S,     I32Extend8S) \
  X(I32Extend16S,       0xC1, Numeric,    I32, _,   I32,  S,     I32Extend16S) \
  X(I64Extend8S,        0xC2, Numeric,    I64, _,   I64,  S,     I64Extend8S) \
  X(I64Extend16S,       0xC3, Numeric,    I64, _,   I64,  S,     I64Extend16S) \
  X(I64Extend32S,       0xC4, Numeric,    I64, _,   I64,  S,     I64Extend32S) \
  X(RefNull,            0xD0, Reference,  _,   _,   _,    S,     ref_null) \
  X(RefIsNull,          0xD1, Reference,  _,   _,   I32,  S,     ref_is_null) \
  X(RefFunc,            0xD2, Reference,  _,   _,   FRef, S,     ref_func) \
  X(PrefixFC,           0xFC, Prefix,     _,   _,   _,    N,     _)


// The 0xFC-prefixed instructions, by their sub-opcode (the bulk memory and table ones take
// their operands on the canonical stack slots, ops.h).
#define K32_WASM_FC_OPCODES(X) \
  X(I32TruncSatF32S,    0x00, Numeric,    F32, _,   I32,  S,     I32TruncSatF32S) \
  X(I32TruncSatF32U,    0x01, Numeric,    F32, _,   I32,  S,     I32TruncSatF32U) \
  X(I32TruncSatF64S,    0x02, Numeric,    F64, _,   I32,  S,     I32TruncSatF64S) \
  X(I32TruncSatF64U,    0x03, Numeric,    F64, _,   I32,  S,     I32TruncSatF64U) \
  X(I64TruncSatF32S,    0x04, Numeric,    F32, _,   I64,  S,     I64TruncSatF32S) \
  X(I64TruncSatF32U,    0x05, Numeric,    F32, _,   I64,  S,     I64TruncSatF32U) \
  X(I64TruncSatF64S,    0x06, Numeric,    F64, _,   I64,  S,     I64TruncSatF64S) \
  X(I64TruncSatF64U,    0x07, Numeric,    F64, _,   I64,  S,     I64TruncSatF64U) \
  X(MemoryInit,         0x08, Memory,     _,   _,   _,    S,     MemoryInit) \
  X(DataDrop,           0x09, Memory,     _,   _,   _,    S,     DataDrop) \
  X(MemoryCopy,         0x0A, Memory,     _,   _,   _,    S,     MemoryCopy) \
  X(MemoryFill,         0x0B, Memory,     _,   _,   _,    S,     MemoryFill) \
  X(TableInit,          0x0C, Variable,   _,   _,   _,    S,     TableInit) \
  X(ElemDrop,           0x0D, Variable,   _,   _,   _,    S,     ElemDrop) \
  X(TableCopy,          0x0E, Variable,   _,   _,   _,    S,     TableCopy) \
  X(TableGrow,          0x0F, Variable,   _,   _,   _,    S,     TableGrow) \
  X(TableSize,          0x10, Variable,   _,   _,   _,    S,     TableSize) \
  X(TableFill,          0x11, Variable,   _,   _,   _,    S,     TableFill)
// clang-format on

namespace k32 {
namespace wasm {
namespace opc {

#define K32_OPC_NAME(name, byte, ...) k##name = byte,
enum : uint8_t { K32_WASM_OPCODES(K32_OPC_NAME) };
enum : uint8_t { K32_WASM_FC_OPCODES(K32_OPC_NAME) kFCCount };
#undef K32_OPC_NAME

enum class Group : uint8_t { Illegal, Control, Parametric, Variable, Memory, Constant, Numeric, Reference, Prefix };

// forms, as bits
enum : uint16_t {
  kHandler = 1,   // has a handler of its own
  kImmForm = 2,   // SI
  kAccForms = 4,  // SIA
  kCommutes = 8,  // C
  kSafeImm = 16,  // D
  kNoCode = 32,   // R
  kLoad = 64,
  kStore = 128,
};
#define K32_FORMS_N 0
#define K32_FORMS_R opc::kNoCode
#define K32_FORMS_S opc::kHandler
#define K32_FORMS_SI (opc::kHandler | opc::kImmForm)
#define K32_FORMS_SID (opc::kHandler | opc::kImmForm | opc::kSafeImm)
#define K32_FORMS_SIC (opc::kHandler | opc::kImmForm | opc::kCommutes)
#define K32_FORMS_SIA (opc::kHandler | opc::kImmForm | opc::kAccForms)
#define K32_FORMS_SIAC (opc::kHandler | opc::kImmForm | opc::kAccForms | opc::kCommutes)
#define K32_FORMS_Load0 (opc::kHandler | opc::kLoad | 0 << 8)
#define K32_FORMS_Load1 (opc::kHandler | opc::kLoad | 1 << 8)
#define K32_FORMS_Load2 (opc::kHandler | opc::kLoad | 2 << 8)
#define K32_FORMS_Load3 (opc::kHandler | opc::kLoad | 3 << 8)
#define K32_FORMS_Store0 (opc::kHandler | opc::kStore | 0 << 8)
#define K32_FORMS_Store1 (opc::kHandler | opc::kStore | 1 << 8)
#define K32_FORMS_Store2 (opc::kHandler | opc::kStore | 2 << 8)
#define K32_FORMS_Store3 (opc::kHandler | opc::kStore | 3 << 8)
// value types: their binary encoding (ValType), 0 for none
#define K32_TYPE__ 0
#define K32_TYPE_I32 0x7F
#define K32_TYPE_I64 0x7E
#define K32_TYPE_F32 0x7D
#define K32_TYPE_F64 0x7C
#define K32_TYPE_FRef 0x70

// What the table says of one opcode, packed in 32 bits:
// group, forms, the three types and the accumulator variants' index.
struct Info {
  uint32_t w;
  constexpr Group group() const { return Group(w & 15); }
  constexpr uint16_t forms() const { return uint16_t(w >> 4 & 0x3FF); }
  constexpr uint32_t align_log2() const { return forms() >> 8; }
  constexpr bool has(uint16_t f) const { return (forms() & f) != 0; }
  constexpr uint8_t in1() const { return type(w >> 14); }
  constexpr uint8_t in2() const { return type(w >> 17); }
  constexpr uint8_t out() const { return type(w >> 20); }
  constexpr int acc_index() const { return int(w >> 23 & 31) - 1; }  // stored + 1: 0 is none
  static constexpr uint32_t code(uint8_t t) {
    return t == 0x7F ? 1 : t == 0x7E ? 2 : t == 0x7D ? 3 : t == 0x7C ? 4 : t == 0x70 ? 5 : 0;
  }
  static constexpr uint8_t type(uint32_t c) {
    return (c & 7) == 1 ? 0x7F : (c & 7) == 2 ? 0x7E : (c & 7) == 3 ? 0x7D : (c & 7) == 4 ? 0x7C : (c & 7) == 5 ? 0x70 : 0;
  }
  static constexpr Info make(Group g, uint16_t forms, uint8_t in1, uint8_t in2, uint8_t out) {
    return Info{uint32_t(g) | uint32_t(forms) << 4 | code(in1) << 14 | code(in2) << 17 | code(out) << 20};
  }
};
template <uint32_t N>
struct InfoTable {
  Info of[N];
};
constexpr uint32_t kTableBytes = 0xD3;  // every opcode byte but the 0xFC prefix is below this
constexpr InfoTable<kTableBytes> make_info() {
  InfoTable<kTableBytes> t{};
#define K32_OPC_INFO(name, byte, group, in1, in2, out, forms, handler) \
  if (byte < kTableBytes) \
    t.of[byte] = Info::make(Group::group, K32_FORMS_##forms, K32_TYPE_##in1, K32_TYPE_##in2, K32_TYPE_##out);
  K32_WASM_OPCODES(K32_OPC_INFO)
  uint32_t n = 0;
  for (Info& i : t.of)
    if (i.has(kAccForms)) i.w |= ++n << 23;
  return t;
}
constexpr InfoTable<kFCCount> make_fc_info() {
  InfoTable<kFCCount> t{};
  K32_WASM_FC_OPCODES(K32_OPC_INFO)
  return t;
}
#undef K32_OPC_INFO
constexpr Info kPrefix = Info::make(Group::Prefix, 0, 0, 0, 0);
static_assert(kPrefixFC >= kTableBytes, "the prefix is the one opcode past the table");

// What the table says of an opcode: in constant expressions (the executor's handler lists)
// evaluated by the C++ compiler, at run time read from the one copy in flash (opcodes.cpp).
extern const InfoTable<kTableBytes> kTable;
extern const InfoTable<kFCCount> kFCTable;
constexpr Info info(uint32_t byte) {
  if (byte >= kTableBytes) return byte == kPrefixFC ? kPrefix : Info{0};
  if (__builtin_is_constant_evaluated()) return make_info().of[byte];  // no table in the object
  return kTable.of[byte];
}
// The binary operators with accumulator variants, numbered in opcode order (ops.h); -1 for
// the others.
constexpr int acc_index(uint32_t byte) { return info(byte).acc_index(); }

}  // namespace opc
}  // namespace wasm
}  // namespace k32
