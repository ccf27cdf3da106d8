// The function-body compiler: validation (the WebAssembly spec's algorithm: operand and
// control stacks) and, in the same pass, compilation to the internal code of ops.h. Stack
// heights are static in WebAssembly, so every branch gets its target and value move
// precomputed.
//
// One file per part: compile.cpp (the loop over a body, the operand and control stacks,
// immediates), compile_control.inc (blocks, branches, calls), compile_variable.inc (locals,
// globals, tables, select, references), compile_memory.inc (loads, stores, bulk memory),
// compile_numeric.inc (constants and operators) and compile_fused.inc (the accumulator and
// the fused instructions of fused.h). Which group an opcode belongs to is opcodes.h's.
#pragma once
#include "fused.h"
#include "ops.h"
#include "reader.h"

namespace k32 {
namespace wasm {
namespace compiler {

constexpr uint8_t kUnknown = 0;  // the bottom type of unreachable code
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kMaxLocals = 50000;  // beyond this no call could fit a bounded stack
// Operand location tags: a value not yet computed into any slot. kConst: a constant;
// kAddK: `x + k` (i32), kept pending because a load or store can take it as its address.
constexpr uint32_t kDeferred = 0x80000000u;
constexpr uint32_t kConst = 0x80000000u;
constexpr uint32_t kAddK = 0xC0000000u;
constexpr uint32_t kTagMask = 0xC0000000u;
constexpr uint8_t kI32 = uint8_t(ValType::I32), kI64 = uint8_t(ValType::I64), kF32 = uint8_t(ValType::F32),
                  kF64 = uint8_t(ValType::F64);

const ValType* single(ValType t);  // the one-element type list of t, or null for no value type
inline bool is_num(uint8_t t) { return t == kI32 || t == kI64 || t == kF32 || t == kF64; }
inline bool is_ref(uint8_t t) { return t == uint8_t(ValType::FuncRef) || t == uint8_t(ValType::ExternRef); }

enum Kind : uint8_t { kBlock, kLoopK, kIf, kElse, kFunc };

struct Ctrl {
  Kind kind;
  bool unreachable;
  const ValType* params;
  uint32_t np;
  const ValType* results;
  uint32_t nr;
  uint32_t height;
  uint32_t start_pc;
  uint32_t fixups;
  uint32_t else_at;
  uint32_t id;          // unique within the body: tells a reopened ctrls[] index from the old one
  uint32_t head_table;  // loops: pc of the br_table ending a copyable head, else kNone
  uint32_t head_refs;   // … and where its entries' labels start in Compiler::head_refs
};

struct LocalRun {
  uint32_t end;  // first local index after this run
  ValType t;
};

struct Compiler {
  Module* m;
  Reader& r;
  const Allocator& a;
  const uint8_t* refs;
  Vec<uint32_t>& code;
  Vec<uint8_t> vals;    // operand types (kUnknown in unreachable code)
  Vec<uint32_t> locs;   // slot holding each operand: its canonical slot, a local's slot, or
                        // kConst|index of a constant not yet written anywhere
  Vec<uint64_t> kvals;  // deferred constants' values; kAddK: x slot << 32 | k
  Vec<Ctrl> ctrls;
  Vec<LocalRun> locals;
  uint32_t nlocals = 0;
  uint32_t max_height = 0;
  // Where the last instruction wrote its result, for folding a following local.set into it.
  uint32_t last_dst_word = kNone;
  uint32_t last_dst_end = kNone;
  uint32_t op_start = 0;           // pc where the current WebAssembly instruction's code begins
  uint32_t last_op_start = kNone;  // … and where the last value-producing one began
  uint32_t last_op_code = kNone;   // … and its opcode
  uint32_t last_emitted_op = kNone;
  // The producer before the last one (cond_jump_head: a float compare under an i32.eqz).
  uint32_t prev_dst_word = kNone, prev_dst_end = kNone, prev_op_start = kNone, prev_op_code = kNone;
  const HandlerWords xlat = handler_words();
  uint32_t label_pc = kNone;                   // a branch target sits at this pc: no folding across it
  uint32_t copy_at = kNone, copy_end = kNone;  // the last copy instruction, for merging
  uint32_t fconst_at = kNone;                  // the last f64 constant written to a slot (float_jump_head)
  uint32_t const_at = kNone;                   // the last kI32Const, for a jump to carry it
  uint32_t nparams = 0;
  // The last instruction that may pair with the next one (fused.h): add-immediates into a
  // slot, loads and compare-and-jumps, all four words long.
  uint32_t pair_at = kNone, pair_op = kNone;
  uint64_t written = 0;    // locals 0..63 some local.set/tee has written so far
  bool seen_loop = false;  // a backward branch target exists: nothing is "so far" any more
  // Loop heads copied into the jumps to them (tail duplication, compile_control.inc).
  uint32_t straight_from = 0;  // no branch, if or direct call has a word at or after this pc
  uint32_t next_ctrl_id = 0;
  uint32_t body_start = 0;
  uint32_t dup_words = 0;   // words of this body that are copies of a loop head
  Vec<uint32_t> head_refs;  // per copyable head's br_table entry: ctrls[] index, Ctrl::id

  Compiler(Module* m_, Reader& r_, const uint8_t* refs_) : m(m_), r(r_), a(m_->alloc), refs(refs_), code(m_->code) {}
  ~Compiler();

  // ---- the loop over a body, by opcode group (compile.cpp and one file per group) ----
  bool body(uint32_t type_index);
  bool control(uint8_t opc);
  bool parametric(uint8_t opc);
  bool variable(uint8_t opc);
  bool memory(uint8_t opc);
  bool constant(uint8_t opc);
  bool numeric(uint32_t opc);
  bool reference(uint8_t opc);
  bool prefixed();  // 0xFC
  bool bulk_memory(uint32_t sub);
  bool bulk_table(uint32_t sub);
  bool local_set(uint32_t idx, bool tee);
  bool load(uint8_t opc);
  bool store(uint8_t opc);
  bool select(uint8_t opc);

  // ---- code and the operand stack (compile.cpp) ----
  bool oom() { return r.fail(Error::OutOfMemory, "out of memory"); }
  bool emit(uint32_t w) { return code.push(a, w) || oom(); }
  // Opcodes are stored as their handler's offset in the executor (direct threading).
  bool emit_op(uint32_t o) {
    last_emitted_op = o;
    return emit(uint32_t(xlat[o]));
  }
  bool is_op(uint32_t at, uint32_t o) const { return code[at] == uint32_t(xlat[o]); }
  uint32_t pc() const { return code.n; }
  uint32_t canon(uint32_t h) const { return nlocals + h; }
  static bool is_const(uint32_t loc) { return (loc & kTagMask) == kConst; }
  static bool is_addk(uint32_t loc) { return (loc & kTagMask) == kAddK; }
  static bool is_deferred(uint32_t loc) { return (loc & kDeferred) != 0; }
  uint64_t const_value(uint32_t loc) const { return kvals[loc & ~kTagMask]; }
  void addk_parts(uint32_t loc, uint32_t* x, uint32_t* k) const {
    uint64_t v = kvals[loc & ~kTagMask];
    *x = uint32_t(v >> 32);
    *k = uint32_t(v);
  }
  bool push(uint8_t t, uint32_t loc = kNone);
  bool push(ValType t) { return push(uint8_t(t)); }
  bool push_const(uint8_t t, uint64_t v);
  bool push_addk(uint32_t x, uint32_t k);
  bool emit_const(uint8_t t, uint32_t loc, uint32_t dst);
  bool pop(uint8_t expect, uint8_t* got = nullptr, uint32_t* slot = nullptr, bool raw = false);
  bool pop(ValType t, uint32_t* slot = nullptr) { return pop(uint8_t(t), nullptr, slot); }
  bool pop_to_slot(uint8_t t, uint32_t loc, uint32_t h, uint32_t* slot);
  bool pops(const ValType* ts, uint32_t n);
  bool pushes(const ValType* ts, uint32_t n);
  bool check_top(const ValType* ts, uint32_t n);
  bool materialize(uint32_t h);
  bool materialize_top(uint32_t k);
  bool materialize_all() { return materialize_top(vals.n); }
  bool detach_local(uint32_t l);
  void mark_label() { label_pc = pc(); }
  void truncate(uint32_t at);
  bool emit_copy(uint32_t src, uint32_t dst);
  bool produced(uint8_t t, uint32_t dst_at) {
    note_producer(dst_at);
    return push(t);
  }
  void note_producer(uint32_t dst_at) {
    prev_dst_word = last_dst_word;
    prev_dst_end = last_dst_end;
    prev_op_start = last_op_start;
    prev_op_code = last_op_code;
    last_dst_word = dst_at;
    last_dst_end = pc();
    last_op_start = op_start;
    last_op_code = last_emitted_op;
  }
  bool stack_style(uint32_t opcode, uint32_t ninputs);

  // ---- the control stack and branches (compile.cpp, compile_control.cpp) ----
  bool push_ctrl(Kind k, const ValType* p, uint32_t np, const ValType* res, uint32_t nr);
  bool pop_ctrl(Ctrl* out);
  void set_unreachable();
  static const ValType* label_types(const Ctrl& c, uint32_t* n);
  void patch_chain(uint32_t head, uint32_t target);
  bool emit_target(Ctrl& t);
  bool branch(Ctrl& t, uint32_t cond);
  bool emit_jmp();
  void note_loop_head(uint32_t table_at, uint32_t refs, uint32_t straight);
  bool copy_loop_head(Ctrl& t, bool* copied);
  bool local_result(uint32_t n, uint32_t* slot) const;
  bool emit_return();
  bool emit_ret(uint32_t n, uint32_t from);
  bool call(uint32_t f);
  bool note_call(uint32_t callee, uint32_t base);

  // ---- immediates (compile.cpp) ----
  bool local_type(uint32_t idx, ValType* t);
  bool block_type(const ValType** p, uint32_t* np, const ValType** res, uint32_t* nr);
  bool memarg(uint32_t natural_log2, uint32_t* offset);
  bool zero_byte();
  bool table_index(uint32_t* t);
  bool imm_of(uint32_t loc, uint8_t t, uint32_t* imm) const;

  // ---- operators (compile_numeric.cpp) ----
  bool emit_binary(uint32_t opc, uint32_t a_slot, uint32_t b, bool imm, uint32_t dst);

  // ---- the accumulator and the fused instructions (compile_fused.cpp) ----
  bool fusable(uint32_t slot) const;
  bool take_acc(uint32_t slot, bool may_pair = true, bool reads_facc = false);
  bool mirrored(uint32_t slot, bool may_pair) const;
  uint32_t slot_form(uint32_t at, uint32_t o) const;
  uint32_t mirror_at = kNone;  // the instruction here read a mirrored operand: its slot words are real
  static bool keeps_acc(uint32_t o);
#if K32_FACC_XMM
  bool load8_in_facc(uint32_t slot) const;
  static bool f64_operator(uint32_t o);
#endif
  static uint32_t acc_output(uint32_t o);
  bool pairs_before(uint32_t o, uint32_t at) const;
  bool addi_before(uint32_t at) const { return pairs_before(op::kImm + opc::kI32Add, at); }
  void pair_into(uint32_t o);
  void pair_candidate(uint32_t o) {
    pair_at = pc();
    pair_op = o;
  }
  // Operand word i of the instruction at `at` (after its opcode word), and of the pairing
  // candidate.
  uint32_t word(uint32_t at, uint32_t i) const { return code[at + 1 + i]; }
  uint32_t pair_word(uint32_t i) const { return word(pair_at, i); }
  bool copies_before(uint32_t at, bool* with_add);
  void copies_become(uint32_t o);
  // True when the operator completes a fused instruction, which it then emits (*ok: no error).
  bool fuse_binary(uint32_t opc, uint32_t a_slot, uint32_t b, bool imm, uint32_t dst, bool* ok);
  bool cond_jump_head(bool when_true, uint32_t cond);
  bool float_jump_head(uint32_t st, uint32_t o, bool when_true);
  bool test_before(uint32_t at, uint32_t cond, bool nonzero);
};

}  // namespace compiler
}  // namespace wasm
}  // namespace k32
