// Validation of function bodies (the WebAssembly spec's algorithm: operand and control stacks) and, in
// the same pass, compilation to the internal code of ops.h. Stack heights are static in
// WebAssembly, so every branch gets its target and value move precomputed here.
#include <initializer_list>
#include <utility>

#include "ops.h"
#include "reader.h"

namespace k32 {
namespace wasm {

namespace {

constexpr uint8_t kUnknown = 0;  // the bottom type of unreachable code
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kMaxLocals = 50000;  // beyond this no call could fit a bounded stack
// Operand location tags: a value not yet computed into any slot. kConst: a constant;
// kAddK: `x + k` (i32), kept pending because a load or store can take it as its address.
constexpr uint32_t kDeferred = 0x80000000u;
constexpr uint32_t kConst = 0x80000000u;
constexpr uint32_t kAddK = 0xC0000000u;
constexpr uint32_t kTagMask = 0xC0000000u;

const ValType kSingle[] = {ValType::I32, ValType::I64, ValType::F32, ValType::F64,
                           ValType::FuncRef, ValType::ExternRef};
const ValType* single(ValType t) {
  for (const ValType& s : kSingle)
    if (s == t) return &s;
  return nullptr;
}
bool is_num(uint8_t t) { return t == 0x7F || t == 0x7E || t == 0x7D || t == 0x7C; }
bool is_ref(uint8_t t) { return t == 0x70 || t == 0x6F; }

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
  Vec<uint8_t> vals;   // operand types (kUnknown in unreachable code)
  Vec<uint32_t> locs;  // slot holding each operand: its canonical slot, a local's slot, or
                       // kConst|index of a constant not yet written anywhere
  Vec<uint64_t> kvals;  // deferred constants' values; kAddK: x slot << 32 | k
  Vec<Ctrl> ctrls;
  Vec<LocalRun> locals;
  uint32_t nlocals = 0;
  uint32_t max_height = 0;
  // Where the last instruction wrote its result, for folding a following local.set into it.
  uint32_t last_dst_word = kNone;
  uint32_t last_dst_end = kNone;
  uint32_t op_start = 0;        // pc where the current WebAssembly instruction's code begins
  uint32_t last_op_start = kNone;  // … and where the last value-producing one began
  uint32_t last_op_code = kNone;   // … and its opcode
  uint32_t last_emitted_op = kNone;
  const HandlerWords xlat = handler_words();
  uint32_t label_pc = kNone;  // a branch target sits at this pc: no folding across it
  uint32_t copy_at = kNone, copy_end = kNone;  // the last copy instruction, for merging
  uint32_t nparams = 0;
  // The last instruction that may pair with the next one (ops.h): add-immediates into a
  // slot, loads and compare-and-jumps, all four words long.
  uint32_t pair_at = kNone, pair_op = kNone;
  uint64_t written = 0;    // locals 0..63 some local.set/tee has written so far
  bool seen_loop = false;  // a backward branch target exists: nothing is "so far" any more

  Compiler(Module* m_, Reader& r_, const uint8_t* refs_)
      : m(m_), r(r_), a(m_->alloc), refs(refs_), code(m_->code) {}
  ~Compiler() {
    vals.release(a);
    locs.release(a);
    kvals.release(a);
    ctrls.release(a);
    locals.release(a);
  }

  bool oom() { return r.fail(Error::OutOfMemory, "out of memory"); }
  bool emit(uint32_t w) { return code.push(a, w) || oom(); }
  // Opcodes are stored as their handler's offset in the executor (direct threading).
  bool emit_op(uint32_t o) {
    last_emitted_op = o;
    return emit(uint32_t(xlat[o]));
  }
  uint32_t pc() const { return code.n; }
  uint32_t canon(uint32_t h) const { return nlocals + h; }

  bool push(uint8_t t, uint32_t loc = kNone) {
    uint32_t h = vals.n;
    if (!vals.push(a, t) || !locs.push(a, loc == kNone ? canon(h) : loc)) return oom();
    if (vals.n > max_height) max_height = vals.n;
    return true;
  }
  bool push(ValType t) { return push(uint8_t(t)); }
  // Pops one operand; *slot receives where it lives (any slot in unreachable code).
  static bool is_const(uint32_t loc) { return (loc & kTagMask) == kConst; }
  static bool is_addk(uint32_t loc) { return (loc & kTagMask) == kAddK; }
  static bool is_deferred(uint32_t loc) { return (loc & kDeferred) != 0; }
  bool push_const(uint8_t t, uint64_t v) {
    if (!kvals.push(a, v)) return oom();
    return push(t, kConst | (kvals.n - 1));
  }
  bool push_addk(uint32_t x, uint32_t k) {
    if (!kvals.push(a, uint64_t(x) << 32 | k)) return oom();
    return push(0x7F, kAddK | (kvals.n - 1));
  }
  void addk_parts(uint32_t loc, uint32_t* x, uint32_t* k) const {
    uint64_t v = kvals[loc & ~kTagMask];
    *x = uint32_t(v >> 32);
    *k = uint32_t(v);
  }
  // Writes a deferred operand of type t into `dst`.
  bool emit_const(uint8_t t, uint32_t loc, uint32_t dst) {
    if (is_addk(loc)) {
      uint32_t x, k;
      addk_parts(loc, &x, &k);
      uint32_t saved = op_start;
      if (!emit_binary(0x6A, x, k, true, dst)) return false;
      note_producer(pc() - 1);
      op_start = saved;
      return true;
    }
    uint64_t v = kvals[loc & ~kTagMask];
    if (t == 0x7E || t == 0x7C)
      return emit_op(op::kI64Const) && emit(dst) && emit(uint32_t(v)) && emit(uint32_t(v >> 32));
    return emit_op(op::kI32Const) && emit(dst) && emit(uint32_t(v));
  }
  // Pops one operand; *slot receives where it lives (any slot in unreachable code). A
  // deferred constant is written to the operand's canonical slot first, unless `raw`.
  bool pop(uint8_t expect, uint8_t* got = nullptr, uint32_t* slot = nullptr, bool raw = false) {
    Ctrl& c = ctrls[ctrls.n - 1];
    uint8_t t;
    if (vals.n == c.height) {
      if (!c.unreachable) return r.invalid("type mismatch: operand stack underflow");
      t = kUnknown;
      if (slot) *slot = canon(vals.n);
    } else {
      t = vals.p[--vals.n];
      locs.n--;
      uint32_t loc = locs.p[vals.n];
      if (slot && !raw && is_deferred(loc)) {
        if (!emit_const(t, loc, canon(vals.n))) return false;
        loc = canon(vals.n);
      }
      if (slot) *slot = loc;
    }
    if (t != expect && t != kUnknown && expect != kUnknown) return r.invalid("type mismatch");
    if (got) *got = t == kUnknown ? expect : t;
    return true;
  }
  bool pop(ValType t, uint32_t* slot = nullptr) { return pop(uint8_t(t), nullptr, slot); }
  bool pops(const ValType* ts, uint32_t n) {
    for (uint32_t i = n; i-- > 0;)
      if (!pop(uint8_t(ts[i]))) return false;
    return true;
  }
  bool pushes(const ValType* ts, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
      if (!push(ts[i])) return false;
    return true;
  }
  // Type-checks the top operands against ts without consuming them.
  bool check_top(const ValType* ts, uint32_t n) {
    uint32_t saved = vals.n;
    bool ok = pops(ts, n);
    vals.n = locs.n = saved;
    return ok;
  }

  // Puts operand h into its canonical slot (a copy from the local it still refers to).
  bool materialize(uint32_t h) {
    if (locs[h] == canon(h)) return true;
    if (is_deferred(locs[h])) {
      if (!emit_const(vals[h], locs[h], canon(h))) return false;
    } else if (!emit_copy(locs[h], canon(h))) {
      return false;
    }
    locs[h] = canon(h);
    return true;
  }
  bool materialize_top(uint32_t k) {
    for (uint32_t h = vals.n > k ? vals.n - k : 0; h < vals.n; h++)
      if (!materialize(h)) return false;
    return true;
  }
  bool materialize_all() { return materialize_top(vals.n); }
  // Before local `l` changes, operands still reading it must take their own copy.
  bool detach_local(uint32_t l) {
    for (uint32_t h = 0; h < vals.n; h++) {
      uint32_t x = locs[h], k;
      if (is_addk(x)) addk_parts(locs[h], &x, &k);
      if (x == l && !materialize(h)) return false;
    }
    return true;
  }
  void mark_label() { label_pc = pc(); }
  // Removes the instructions from `at` on (a producer being fused into its consumer).
  void truncate(uint32_t at) {
    code.n = at;
    last_dst_end = kNone;
    copy_end = kNone;
    if (pair_at != kNone && pair_at + 4 > at) pair_at = kNone;
  }
  // True when instruction `o` (a pairing candidate) ends right where the next instruction
  // begins, unchanged, and no branch lands between them: the two may run as one.
  bool pairs_before(uint32_t o, uint32_t at) const {
    return pair_at != kNone && pair_op == o && pair_at + 4 == at && code.n >= at && label_pc != at &&
           code[pair_at] == uint32_t(xlat[o]);
  }
  bool addi_before(uint32_t at) const { return pairs_before(op::kImm + 0x6A, at); }
  // Turns that candidate into the paired instruction `o`, whose remaining operand words the
  // caller emits next (the second instruction's opcode word is never written).
  void pair_into(uint32_t o) {
    code.n = pair_at + 4;
    code[pair_at] = uint32_t(xlat[o]);
    op_start = pair_at;
    last_emitted_op = o;
    pair_at = kNone;
  }
  void pair_candidate(uint32_t o) {
    pair_at = pc();
    pair_op = o;
  }
  // Consecutive copies (a loop rotating its variables, values entering a block) become one
  // instruction: kCopy, then kCopy2, then kCopyN with a count. They still run in order.
  bool emit_copy(uint32_t src, uint32_t dst) {
    if (copy_end == pc() && label_pc != pc()) {
      uint32_t o = last_emitted_op;
      if (o == op::kAddCopyN) {
        code[copy_at + 4]++;
        if (!emit(src) || !emit(dst)) return false;
        copy_end = pc();
        return true;
      }
      if (o == op::kCopy) {
        code[copy_at] = uint32_t(xlat[op::kCopy2]);
        last_emitted_op = op::kCopy2;
      } else if (o == op::kCopy2) {  // insert the count: [op, 3, s1, d1, s2, d2, s3, d3]
        if (!emit(0)) return false;
        for (uint32_t w = pc() - 1; w > copy_at + 1; w--) code[w] = code[w - 1];
        code[copy_at] = uint32_t(xlat[op::kCopyN]);
        code[copy_at + 1] = 2;
        last_emitted_op = op::kCopyN;
      }
      if (last_emitted_op == op::kCopyN) code[copy_at + 1]++;
      if (!emit(src) || !emit(dst)) return false;
      copy_end = pc();
      return true;
    }
    if (addi_before(pc())) {  // `p = p + 4; q = p` (a tee into one local, a set of another)
      pair_into(op::kAddCopyN);
      copy_at = op_start;
      if (!emit(1) || !emit(src) || !emit(dst)) return false;
      copy_end = pc();
      return true;
    }
    copy_at = pc();
    if (!emit_op(op::kCopy) || !emit(src) || !emit(dst)) return false;
    copy_end = pc();
    return true;
  }

  // Emits an instruction producing one value of type t into its canonical slot.
  // `dst_at` is the index of the dst word; it is remembered for local.set folding.
  bool produced(uint8_t t, uint32_t dst_at) {
    note_producer(dst_at);
    return push(t);
  }
  void note_producer(uint32_t dst_at) {
    last_dst_word = dst_at;
    last_dst_end = pc();
    last_op_start = op_start;
    last_op_code = last_emitted_op;
  }

  bool push_ctrl(Kind k, const ValType* p, uint32_t np, const ValType* res, uint32_t nr) {
    Ctrl c{k, false, p, np, res, nr, vals.n, pc(), kNone, kNone};
    if (!ctrls.push(a, c)) return oom();
    return pushes(p, np);
  }
  bool pop_ctrl(Ctrl* out) {
    if (ctrls.n == 0) return r.malformed("unexpected end");
    Ctrl& c = ctrls[ctrls.n - 1];
    if (!pops(c.results, c.nr)) return false;
    if (vals.n != c.height) return r.invalid("type mismatch: values remain at end of block");
    *out = c;
    ctrls.n--;
    return true;
  }
  void set_unreachable() {
    Ctrl& c = ctrls[ctrls.n - 1];
    vals.n = locs.n = c.height;
    c.unreachable = true;
  }
  static const ValType* label_types(const Ctrl& c, uint32_t* n) {
    if (c.kind == kLoopK) {
      *n = c.np;
      return c.params;
    }
    *n = c.nr;
    return c.results;
  }

  void patch_chain(uint32_t head, uint32_t target) {
    while (head != kNone) {
      uint32_t next = code[head];
      code[head] = target - head;  // relative to the word itself
      head = next;
    }
  }
  bool emit_target(Ctrl& t) {
    if (t.kind == kLoopK) return emit(t.start_pc - pc());
    if (!emit(t.fixups)) return false;
    t.fixups = pc() - 1;
    return true;
  }
  // Branch operands are first put in their canonical slots; a branch whose values already
  // sit where the label wants them is a plain jump. cond == kNone: unconditional.
  bool branch(Ctrl& t, uint32_t cond) {
    uint32_t keep;
    label_types(t, &keep);
    if (!materialize_top(keep)) return false;
    uint32_t from = canon(vals.n >= keep ? vals.n - keep : 0), to = canon(t.height);
    bool plain = keep == 0 || from == to;
    if (cond == kNone) {
      if (plain) return emit_jmp() && emit_target(t);
      return emit_op(op::kBr) && emit_target(t) && emit(keep) && emit(from) && emit(to);
    }
    if (plain) {
      return cond_jump_head(true, cond) && emit_target(t);
    }
    return emit_op(op::kBrIf) && emit(cond) && emit_target(t) && emit(keep) && emit(from) && emit(to);
  }
  // A copy run (kCopy, kCopy2, kCopyN, kAddCopyN) ending at `at` with no branch target there,
  // about to become part of a jump: gives it a count word if it has none and tells whether
  // it starts with an add. False when there is no such run.
  bool copies_before(uint32_t at, bool* with_add) {
    if (copy_end != at || label_pc == at || copy_at == kNone) return false;
    uint32_t w = code[copy_at];
    *with_add = w == uint32_t(xlat[op::kAddCopyN]);
    if (*with_add || w == uint32_t(xlat[op::kCopyN])) return true;
    bool one = w == uint32_t(xlat[op::kCopy]);
    if (!one && w != uint32_t(xlat[op::kCopy2])) return false;
    if (!emit(0)) return false;  // insert the count
    for (uint32_t i = pc() - 1; i > copy_at + 1; i--) code[i] = code[i - 1];
    code[copy_at + 1] = one ? 1 : 2;
    return true;
  }
  void copies_become(uint32_t o) {
    code[copy_at] = uint32_t(xlat[o]);
    last_emitted_op = o;
    copy_end = kNone;
  }
  // The opcode of an unconditional jump; copies just emitted (values moved around a loop or
  // into a block's results) become part of it.
  bool emit_jmp() {
    bool with_add;
    if (!copies_before(pc(), &with_add)) return !r.failed() && emit_op(op::kJmp);
    copies_become(with_add ? op::kAddCopyNJmp : op::kCopyNJmp);
    return true;
  }
  // True when the previous instruction, ending at pc and not a branch target, produced the
  // operand just popped from `slot` (a canonical slot belongs to one stack position only,
  // so nothing else reads it): that instruction may then be fused into its consumer.
  bool fusable(uint32_t slot) const {
    return last_dst_end == pc() && label_pc != pc() && last_op_start != kNone &&
           code[last_dst_word] == slot && slot >= nlocals;
  }
  // The accumulator (ops.h): when the instruction just emitted produced `slot` (fusable: a
  // canonical slot, so the consumer being compiled is its only reader), that instruction is
  // switched to leave its result in the accumulator only, and true tells the caller to emit
  // its variant reading the accumulator.
  bool take_acc(uint32_t slot) {
    if (!fusable(slot)) return false;
    uint32_t out = acc_output(last_op_code);
    if (out == kNone) return false;
    code[last_op_start] = uint32_t(xlat[out]);
    last_op_code = out;
    return true;
  }
  // The variant of producer `o` that writes the accumulator instead of its slot, or kNone.
  static uint32_t acc_output(uint32_t o) {
    if (o < 0x100 && op::acc_index(o) >= 0) return op::acc_op(op::kSSA, o);
    if (o >= op::kImm && o < op::kImm + 0x100 && op::acc_index(o - op::kImm) >= 0)
      return op::acc_op(op::kSIA, o - op::kImm);
    if (o >= op::kAcc && o < op::kLoadAcc) {
      uint32_t v = (o - op::kAcc) / 64, i = (o - op::kAcc) % 64;
      uint32_t to = v == op::kASS ? op::kASA : v == op::kAIS ? op::kAIA : v == op::kSAS ? op::kSAA : kNone;
      return to == kNone ? kNone : op::kAcc + to * 64 + i;
    }
    if (o >= op::kFuse && o < op::kFuse + 64) return (o - op::kFuse) % 2 ? kNone : o + 1;
    if (o >= op::kRevImm && o < op::kRevImm + 8) return (o - op::kRevImm) % 2 ? kNone : o + 1;
    if (o >= 0x28 && o <= 0x35) return op::kLoadAcc + op::kBaseSA * 16 + (o - 0x28);
    if (o >= op::kWrap && o <= op::kWrap + 0x0D) return op::kLoadAcc + op::kWrapSA * 16 + (o - op::kWrap);
    if (o >= op::kLoadAcc && o < op::kStoreAcc) {
      uint32_t v = (o - op::kLoadAcc) / 16, k = (o - op::kLoadAcc) % 16;
      if (v == op::kBaseAS) return op::kLoadAcc + op::kBaseAA * 16 + k;
      if (v == op::kWrapAS) return op::kLoadAcc + op::kWrapAA * 16 + k;
    }
    return kNone;
  }
  // Emits binary operator `opc` (already type-checked) reading slots a and b, or a and an
  // immediate, into dst, taking an operand from the accumulator when it can.
  bool emit_binary(uint32_t opc, uint32_t a_slot, uint32_t b, bool imm, uint32_t dst) {
    uint32_t o = imm ? op::kImm + opc : opc;
    // `a op2 (x op1 imm)`, the op1 just emitted: one fused instruction instead of two
    if (!imm && op::fuse2_index(opc) >= 0) {
      uint32_t side[2] = {b, a_slot};
      for (int k = 0; k < 2; k++) {
        uint32_t p = last_op_code;
        if (!fusable(side[k]) || p < op::kImm || p >= op::kImm + 0x100 || op::fuse1_index(p - op::kImm) < 0)
          continue;
        uint32_t fo = op::kFuse + uint32_t(op::fuse1_index(p - op::kImm) * 4 + op::fuse2_index(opc)) * 2;
        uint32_t st = last_op_start, x = code[st + 1], y = code[st + 2];
        truncate(st);
        op_start = pc();
        return emit_op(fo) && emit(side[1 - k]) && emit(x) && emit(y) && emit(dst);
      }
    }
    if (imm && opc == 0x6A && fusable(a_slot) &&
        (last_op_code == op::kImm + 0x74 || last_op_code == op::kImm + 0x6C)) {
      uint32_t st = last_op_start, x = code[st + 1], k = code[st + 2];  // (x << k) + b, x * k + b
      uint32_t fo = last_op_code == op::kImm + 0x74 ? op::kShlAdd : op::kMulAdd;
      truncate(st);
      op_start = pc();
      return emit_op(fo) && emit(x) && emit(k) && emit(b) && emit(dst);
    }
    if (op::acc_index(opc) >= 0) {
      if (imm) {
        if (take_acc(a_slot)) o = op::acc_op(op::kAIS, opc);
      } else if (take_acc(b)) {
        o = op::acc_op(op::kSAS, opc);
      } else if (take_acc(a_slot)) {
        o = op::acc_op(op::kASS, opc);
      }
    }
    if (o == op::kImm + 0x6A) {
      if (addi_before(pc())) {  // two increments (a loop's induction variables)
        pair_into(op::kAddAdd);
        return emit(a_slot) && emit(b) && emit(dst);
      }
      pair_candidate(o);
    } else if (o == op::kImm + 0x71 || o == op::acc_op(op::kAIS, 0x71)) {
      pair_candidate(o);
    }
    op_start = pc();
    return emit_op(o) && emit(a_slot) && emit(b) && emit(dst);
  }

  // Emits the opcode and operands of "jump when cond is true (or false)"; the target word
  // follows. A compare or eqz computed just before is fused into the jump.
  bool cond_jump_head(bool when_true, uint32_t cond) {
    static const uint8_t kNegate[] = {1, 0, 8, 9, 6, 7, 4, 5, 2, 3};
    if (fusable(cond)) {
      uint32_t st = last_op_start, opc = last_op_code;
      // the compare's form: 0 slots, 1 immediate, 2/3/4 accumulator first/with imm/second
      uint32_t cmp = opc, form = 0;
      if (opc >= op::kImm + 0x46 && opc <= op::kImm + 0x4F) {
        cmp = opc - op::kImm;
        form = 1;
      } else if (opc >= op::kAcc && opc < op::kLoadAcc && (opc - op::kAcc) % 64 < 10) {
        uint32_t v = (opc - op::kAcc) / 64;
        cmp = 0x46 + (opc - op::kAcc) % 64;
        form = v == op::kASS ? 2 : v == op::kAIS ? 3 : v == op::kSAS ? 4 : 99;
      }
      if (cmp == 0x45) {
        uint32_t x = code[st + 1];
        truncate(st);
        if (test_before(st, x, !when_true)) return true;
        return emit_op(when_true ? op::kJmpUnless : op::kJmpIf) && emit(x);
      }
      if (cmp >= 0x46 && cmp <= 0x4F && form != 99) {
        static const uint32_t kJmpForm[] = {op::kJmpCmp, op::kJmpCmpI, op::kJmpCmpA, op::kJmpCmpAI,
                                            op::kJmpCmpSA};
        static const uint8_t kSwap[] = {0, 1, 4, 5, 2, 3, 8, 9, 6, 7};  // a < b is b > a
        uint32_t idx = cmp - 0x46, x = code[st + 1], y = code[st + 2];
        if (!when_true) idx = kNegate[idx];
        uint32_t run_end = copy_end;  // copies before the compare, see below
        truncate(st);
        // `i = i + k; if (i < n) …`, the loop idiom: compare the add's result as it is made
        if (form <= 1 && addi_before(st)) {
          uint32_t sum = code[pair_at + 3];
          if (form == 0 && y == sum && x != sum) {
            std::swap(x, y);
            idx = kSwap[idx];
          }
          if (x == sum) {
            pair_into((form ? op::kAddJmpCmpI : op::kAddJmpCmp) + idx);
            return emit(y);
          }
        }
        // `if (s[i] == '"')`: a byte compared as it is loaded
        if (form == 1 && (pairs_before(op::kWrap + 5, st) || pairs_before(0x2D, st)) &&
            code[pair_at + 3] == x && (pair_op == op::kWrap + 5 || code[pair_at + 2] == 0)) {
          pair_into(op::kLoad8JmpCmpI + idx);
          return emit(y);
        }
        // `while (a[i] < x)`: the loaded value compared as it arrives
        if (form == 0 && pairs_before(0x28, st)) {
          uint32_t v = code[pair_at + 3];
          if (y == v && x != v) {
            std::swap(x, y);
            idx = kSwap[idx];
          }
          if (x == v) {
            pair_into(op::kLoadJmpCmp + idx);
            return emit(y);
          }
        }
        // `a = b; b = c; if (i < n) continue`: the copies and the test in one instruction
        copy_end = run_end;
        bool with_add;
        if (form == 0 && copies_before(st, &with_add)) {
          copies_become((with_add ? op::kAddCopyNJmpCmp : op::kCopyNJmpCmp) + idx);
          return emit(x) && emit(y);
        }
        copy_end = kNone;
        if (r.failed()) return false;
        if (form == 1) pair_candidate(op::kJmpCmpI + idx);
        return emit_op(kJmpForm[form] + idx) && emit(x) && emit(y);
      }
    }
    if (test_before(pc(), cond, when_true)) return true;
    uint32_t o = when_true ? op::kJmpIf : op::kJmpUnless;
    if (take_acc(cond)) {
      o = when_true ? op::kJmpIfA : op::kJmpUnlessA;
    } else if (addi_before(pc())) {
      // `i = i + k` then a jump on a condition computed earlier (a flag, a compare made
      // before the increment): one instruction, the add still first
      pair_into(when_true ? op::kAddJmpIf : op::kAddJmpUnless);
      return emit(cond);
    }
    return emit_op(o) && emit(cond);
  }
  // `if (x & k)`: an and-immediate producing the condition `cond` just before `at` becomes a
  // jump on the bits it tests (jumping when they are nonzero, or zero); its target follows.
  bool test_before(uint32_t at, uint32_t cond, bool nonzero) {
    const uint32_t and_s = op::kImm + 0x71, and_a = op::acc_op(op::kAIS, 0x71);
    if (cond < nlocals || !(pairs_before(and_s, at) || pairs_before(and_a, at)) || code[pair_at + 3] != cond)
      return false;
    pair_into(op::kJmpTest + (pair_op == and_a ? 2 : 0) + (nonzero ? 1 : 0));
    return true;
  }

  // A single result still living in a local is returned straight from it.
  bool local_result(uint32_t n, uint32_t* slot) const {
    if (n != 1 || vals.n <= ctrls[ctrls.n - 1].height) return false;
    *slot = locs[vals.n - 1];
    return *slot < nlocals;
  }
  bool emit_return() {
    uint32_t n = ctrls[0].nr, slot;
    if (local_result(n, &slot)) return emit_ret(1, slot);
    if (!materialize_top(n)) return false;
    return emit_ret(n, canon(vals.n >= n ? vals.n - n : 0));
  }
  bool emit_ret(uint32_t n, uint32_t from) {
    return emit_op(n == 1 ? op::kReturn1 : op::kReturn) && emit(n) && emit(from);
  }

  bool local_type(uint32_t idx, ValType* t) {
    if (idx >= nlocals) return r.invalid("unknown local");
    uint32_t lo = 0, hi = locals.n;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (locals[mid].end <= idx) lo = mid + 1;
      else hi = mid;
    }
    *t = locals[lo].t;
    return true;
  }

  bool block_type(const ValType** p, uint32_t* np, const ValType** res, uint32_t* nr) {
    if (r.p < r.end && *r.p == 0x40) {
      r.p++;
      *np = *nr = 0;
      *p = *res = nullptr;
      return true;
    }
    if (r.p < r.end && (*r.p & 0xC0) == 0x40) {  // one-byte negative: a value type
      uint8_t b = *r.p++;
      const ValType* s = single(ValType(b));
      if (!s) return r.malformed("malformed block type");
      *np = 0;
      *p = nullptr;
      *nr = 1;
      *res = s;
      return true;
    }
    int64_t idx = r.sleb(33);
    if (r.failed()) return false;
    if (idx < 0 || uint64_t(idx) >= m->types.n) return r.invalid("unknown type");
    const FuncType& ft = m->types[uint32_t(idx)];
    *p = ft.params();
    *np = ft.nparams;
    *res = ft.results();
    *nr = ft.nresults;
    return true;
  }

  bool memarg(uint32_t natural_log2, uint32_t* offset) {
    if (m->memories.n == 0) return r.invalid("unknown memory 0");
    uint32_t align = r.u32();
    *offset = r.u32();
    if (r.failed()) return false;
    if (align > natural_log2) return r.invalid("alignment must not be larger than natural");
    return true;
  }

  bool zero_byte() {
    uint8_t b = r.u8();
    if (r.failed()) return false;
    if (b != 0) return r.malformed("zero byte expected");
    return true;
  }

  bool table_index(uint32_t* t) {
    *t = r.u32();
    if (r.failed()) return false;
    if (*t >= m->tables.n) return r.invalid("unknown table");
    return true;
  }

  // Stack-style instruction: inputs go to their canonical slots; returns the "top" slot.
  bool stack_style(uint32_t opcode, uint32_t ninputs) {
    if (!materialize_top(ninputs)) return false;
    return emit_op(opcode) && emit(canon(vals.n));
  }

  // Binary operators with an immediate form (no traps, so the constant needs no check).
  static bool has_imm_form(uint32_t opc) {
    return (opc >= 0x46 && opc <= 0x4F) || (opc >= 0x6A && opc <= 0x6C) || (opc >= 0x71 && opc <= 0x78) ||
           (opc >= 0x51 && opc <= 0x5A) || (opc >= 0x7C && opc <= 0x7E) || (opc >= 0x83 && opc <= 0x8A) ||
           (opc >= 0x92 && opc <= 0x95) || (opc >= 0xA0 && opc <= 0xA3) || (opc >= 0x6D && opc <= 0x70);
  }
  // The immediate form of a deferred constant operand of type t (i64: only if it fits 32
  // signed bits; f64: only if it is an f32 widened, bit for bit, NaNs included).
  bool imm_of(uint32_t loc, uint8_t t, uint32_t* imm) const {
    if (!is_const(loc)) return false;
    uint64_t v = kvals[loc & ~kTagMask];
    if (t == 0x7E && uint64_t(int64_t(int32_t(uint32_t(v)))) != v) return false;
    if (t == 0x7C) {
      double d;
      std::memcpy(&d, &v, 8);
      float f = float(d);
      double back = double(f);
      uint64_t bb;
      std::memcpy(&bb, &back, 8);
      if (bb != v) return false;
      uint32_t fb;
      std::memcpy(&fb, &f, 4);
      *imm = fb;
      return true;
    }
    *imm = uint32_t(v);
    return true;
  }

  bool numeric(uint32_t opc);
  bool fc_op();
  bool local_set(uint32_t idx, bool tee);
  bool body(uint32_t type_index);
};

// Operand/result types of the plain numeric instructions, by opcode range.
struct NumSig {
  uint8_t lo, hi;
  uint8_t in1, in2, out;  // in2 == 0: unary
};
const NumSig kNumSigs[] = {
    {0x45, 0x45, 0x7F, 0, 0x7F},    {0x46, 0x4F, 0x7F, 0x7F, 0x7F}, {0x50, 0x50, 0x7E, 0, 0x7F},
    {0x51, 0x5A, 0x7E, 0x7E, 0x7F}, {0x5B, 0x60, 0x7D, 0x7D, 0x7F}, {0x61, 0x66, 0x7C, 0x7C, 0x7F},
    {0x67, 0x69, 0x7F, 0, 0x7F},    {0x6A, 0x78, 0x7F, 0x7F, 0x7F}, {0x79, 0x7B, 0x7E, 0, 0x7E},
    {0x7C, 0x8A, 0x7E, 0x7E, 0x7E}, {0x8B, 0x91, 0x7D, 0, 0x7D},    {0x92, 0x98, 0x7D, 0x7D, 0x7D},
    {0x99, 0x9F, 0x7C, 0, 0x7C},    {0xA0, 0xA6, 0x7C, 0x7C, 0x7C}, {0xA7, 0xA7, 0x7E, 0, 0x7F},
    {0xA8, 0xA9, 0x7D, 0, 0x7F},    {0xAA, 0xAB, 0x7C, 0, 0x7F},    {0xAC, 0xAD, 0x7F, 0, 0x7E},
    {0xAE, 0xAF, 0x7D, 0, 0x7E},    {0xB0, 0xB1, 0x7C, 0, 0x7E},    {0xB2, 0xB3, 0x7F, 0, 0x7D},
    {0xB4, 0xB5, 0x7E, 0, 0x7D},    {0xB6, 0xB6, 0x7C, 0, 0x7D},    {0xB7, 0xB8, 0x7F, 0, 0x7C},
    {0xB9, 0xBA, 0x7E, 0, 0x7C},    {0xBB, 0xBB, 0x7D, 0, 0x7C},    {0xBC, 0xBC, 0x7D, 0, 0x7F},
    {0xBD, 0xBD, 0x7C, 0, 0x7E},    {0xBE, 0xBE, 0x7F, 0, 0x7D},    {0xBF, 0xBF, 0x7E, 0, 0x7C},
    {0xC0, 0xC1, 0x7F, 0, 0x7F},    {0xC2, 0xC4, 0x7E, 0, 0x7E},
};

bool Compiler::numeric(uint32_t opc) {
  for (const NumSig& sig : kNumSigs) {
    if (opc < sig.lo || opc > sig.hi) continue;
    uint32_t sa = 0, sb = 0;
    if (sig.in2 && has_imm_form(opc)) {
      uint32_t imm = 0;
      if (!pop(sig.in2, nullptr, &sb, true)) return false;
      uint32_t hb = vals.n;
      if (!pop(sig.in1, nullptr, &sa, true)) return false;
      uint32_t ha = vals.n;
      // (float + and * commute too: which NaN operand's payload survives is unspecified)
      bool commutes = opc == 0x46 || opc == 0x47 || opc == 0x6A || opc == 0x6C || (opc >= 0x71 && opc <= 0x73) ||
                      opc == 0x51 || opc == 0x52 || opc == 0x7C || opc == 0x7E || (opc >= 0x83 && opc <= 0x85) ||
                      opc == 0x92 || opc == 0x94 || opc == 0xA0 || opc == 0xA2;
      bool use_imm = false;
      if (imm_of(sb, sig.in1, &imm)) {
        // i32 div/rem: only by a constant that cannot trap (or overflow: -1 for the signed)
        use_imm = opc < 0x6D || opc > 0x70 || (imm != 0 && (imm != 0xFFFFFFFFu || opc == 0x6E || opc == 0x70));
      } else if (commutes && imm_of(sa, sig.in1, &imm)) {
        sa = sb;  // `const op x` of a commutative op is `x op const`
        std::swap(ha, hb);
        use_imm = true;
      }
      if (use_imm && (opc == 0x6A || opc == 0x6B)) {  // x + k stays pending (addresses)
        uint32_t k = opc == 0x6A ? imm : 0u - imm, x = sa;
        if (is_addk(sa)) {
          uint32_t k0;
          addk_parts(sa, &x, &k0);
          k += k0;
        }
        if (is_const(sa)) return push_const(0x7F, uint32_t(kvals[sa & ~kTagMask]) + k);
        return push_addk(x, k);
      }
      if (!use_imm && op::rev_index(opc) >= 0 && imm_of(sa, 0x7F, &imm)) {  // `1 << x`
        if (is_deferred(sb) && !emit_const(sig.in2, sb, canon(hb))) return false;
        if (is_deferred(sb)) sb = canon(hb);
        op_start = pc();
        if (!emit_op(op::kRevImm + uint32_t(op::rev_index(opc)) * 2) || !emit(imm) || !emit(sb) ||
            !emit(canon(vals.n)))
          return false;
        return produced(sig.out, pc() - 1);
      }
      if (is_deferred(sa) && !emit_const(sig.in1, sa, canon(ha))) return false;
      if (is_deferred(sa)) sa = canon(ha);
      if (use_imm) {
        if (!emit_binary(opc, sa, imm, true, canon(vals.n))) return false;
        return produced(sig.out, pc() - 1);
      }
      if (is_deferred(sb) && !emit_const(sig.in2, sb, canon(hb))) return false;
      if (is_deferred(sb)) sb = canon(hb);
      if (!emit_binary(opc, sa, sb, false, canon(vals.n))) return false;
      return produced(sig.out, pc() - 1);
    }
    if (sig.in2 && !pop(sig.in2, nullptr, &sb)) return false;
    if (!pop(sig.in1, nullptr, &sa)) return false;
    if (opc >= 0xBC && opc <= 0xBF) return push(sig.out, sa);  // reinterpret: same bits
    if (sig.in2) {
      if (!emit_binary(opc, sa, sb, false, canon(vals.n))) return false;
      return produced(sig.out, pc() - 1);
    }
    op_start = pc();
    if (!emit_op(opc) || !emit(sa) || !emit(canon(vals.n))) return false;
    return produced(sig.out, pc() - 1);
  }
  return r.malformed("illegal opcode");
}

bool Compiler::fc_op() {
  uint32_t sub = r.u32();
  if (r.failed()) return false;
  const uint8_t I = 0x7F;
  if (sub <= 7) {  // saturating truncations: hot unary form
    static const uint8_t kIn[] = {0x7D, 0x7D, 0x7C, 0x7C, 0x7D, 0x7D, 0x7C, 0x7C};
    static const uint8_t kOut[] = {0x7F, 0x7F, 0x7F, 0x7F, 0x7E, 0x7E, 0x7E, 0x7E};
    uint32_t sa;
    if (!pop(kIn[sub], nullptr, &sa)) return false;
    if (!emit_op(op::kFC + sub) || !emit(sa) || !emit(canon(vals.n))) return false;
    return produced(kOut[sub], pc() - 1);
  }
  switch (sub) {
    case 8: {  // memory.init
      uint32_t seg = r.u32();
      if (!zero_byte()) return false;
      if (!m->has_datacount) return r.malformed("data count section required");
      if (m->memories.n == 0) return r.invalid("unknown memory 0");
      if (seg >= m->datacount) return r.invalid("unknown data segment");
      return stack_style(op::kFC + 8, 3) && emit(seg) && pop(I) && pop(I) && pop(I);
    }
    case 9: {  // data.drop
      uint32_t seg = r.u32();
      if (r.failed()) return false;
      if (!m->has_datacount) return r.malformed("data count section required");
      if (seg >= m->datacount) return r.invalid("unknown data segment");
      return stack_style(op::kFC + 9, 0) && emit(seg);
    }
    case 10:
      if (!zero_byte() || !zero_byte()) return false;
      if (m->memories.n == 0) return r.invalid("unknown memory 0");
      return stack_style(op::kFC + 10, 3) && pop(I) && pop(I) && pop(I);
    case 11:
      if (!zero_byte()) return false;
      if (m->memories.n == 0) return r.invalid("unknown memory 0");
      return stack_style(op::kFC + 11, 3) && pop(I) && pop(I) && pop(I);
    case 12: {  // table.init seg table
      uint32_t seg = r.u32();
      uint32_t t;
      if (r.failed() || !table_index(&t)) return false;
      if (seg >= m->elems.n) return r.invalid("unknown elem segment");
      if (m->elems[seg].type != m->tables[t].elem) return r.invalid("type mismatch");
      return stack_style(op::kFC + 12, 3) && emit(seg) && emit(t) && pop(I) && pop(I) && pop(I);
    }
    case 13: {
      uint32_t seg = r.u32();
      if (r.failed()) return false;
      if (seg >= m->elems.n) return r.invalid("unknown elem segment");
      return stack_style(op::kFC + 13, 0) && emit(seg);
    }
    case 14: {  // table.copy dst src
      uint32_t d, src;
      if (!table_index(&d) || !table_index(&src)) return false;
      if (m->tables[d].elem != m->tables[src].elem) return r.invalid("type mismatch");
      return stack_style(op::kFC + 14, 3) && emit(d) && emit(src) && pop(I) && pop(I) && pop(I);
    }
    case 15: {  // table.grow
      uint32_t t;
      if (!table_index(&t)) return false;
      return stack_style(op::kFC + 15, 2) && emit(t) && pop(I) && pop(uint8_t(m->tables[t].elem)) &&
             push(I);
    }
    case 16: {
      uint32_t t;
      if (!table_index(&t)) return false;
      return stack_style(op::kFC + 16, 0) && emit(t) && push(I);
    }
    case 17: {
      uint32_t t;
      if (!table_index(&t)) return false;
      return stack_style(op::kFC + 17, 3) && emit(t) && pop(I) && pop(uint8_t(m->tables[t].elem)) &&
             pop(I);
    }
  }
  return r.malformed("illegal opcode");
}

bool Compiler::local_set(uint32_t idx, bool tee) {
  ValType t = ValType::I32;
  if (!local_type(idx, &t)) return false;
  uint32_t src;
  bool fold = vals.n > ctrls[ctrls.n - 1].height && last_dst_end == pc() && label_pc != pc() &&
              locs[vals.n - 1] == canon(vals.n - 1) && code[last_dst_word] == canon(vals.n - 1);
  uint32_t fold_word = last_dst_word, fold_end = last_dst_end;
  if (!pop(uint8_t(t), nullptr, &src, true)) return false;
  // Declared locals start at zero. Until the first loop every point is reached only forward
  // from the entry, so storing zero into a local nothing has written yet changes nothing
  // (C compilers emit these for variables initialised to 0).
  bool pristine = idx < 64 && idx >= nparams && !seen_loop && !(written >> idx & 1);
  if (pristine && is_const(src) && kvals[src & ~kTagMask] == 0) return !tee || push(uint8_t(t), idx);
  if (idx < 64) written |= uint64_t(1) << idx;
  if (!detach_local(idx)) return false;
  if (is_deferred(src)) {
    if (!emit_const(uint8_t(t), src, idx)) return false;  // computed straight into the local
  } else if (fold && fold_end == pc()) {  // nothing emitted since the producer
    code[fold_word] = idx;  // the producer writes the local directly
  } else if (src != idx) {
    if (!emit_copy(src, idx)) return false;
  }
  last_dst_end = kNone;
  return !tee || push(uint8_t(t), idx);
}

bool Compiler::body(uint32_t type_index) {
  const FuncType& ft = m->types[type_index];
  // locals: params, then the declared runs
  uint64_t total = ft.nparams;
  for (uint32_t i = 0; i < ft.nparams; i++)
    if (!locals.push(a, LocalRun{i + 1, ft.params()[i]})) return oom();
  uint32_t nruns = r.u32();
  for (uint32_t i = 0; i < nruns && !r.failed(); i++) {
    uint32_t n = r.u32();
    uint8_t b = r.u8();
    if (r.failed()) return false;
    total += n;
    if (total > 0xFFFFFFFFull) return r.malformed("too many locals");
    if (b != 0x7F && b != 0x7E && b != 0x7D && b != 0x7C && b != 0x70 && b != 0x6F)
      return r.malformed("malformed value type");
    if (n && !locals.push(a, LocalRun{uint32_t(total), ValType(b)})) return oom();
  }
  if (r.failed()) return false;
  if (total > kMaxLocals) return r.fail(Error::Invalid, "too many locals for this interpreter");
  nlocals = uint32_t(total);
  nparams = ft.nparams;

  if (!push_ctrl(kFunc, nullptr, 0, ft.results(), ft.nresults)) return false;
  ctrls[0].height = 0;

  while (ctrls.n && !r.failed()) {
    uint8_t opc = r.u8();
    if (r.failed()) return false;
    op_start = pc();
    Ctrl& top = ctrls[ctrls.n - 1];
    switch (opc) {
      case 0x00:
        if (!emit_op(op::kUnreachable)) return false;
        set_unreachable();
        break;
      case 0x01: break;  // nop
      case 0x02:
      case 0x03:
      case 0x04: {
        const ValType *p = nullptr, *res = nullptr;
        uint32_t np = 0, nr = 0, cond = 0;
        if (!block_type(&p, &np, &res, &nr)) return false;
        if (opc == 0x04 && !pop(ValType::I32, &cond)) return false;
        // Values entering a block live in canonical slots: every path into a label agrees.
        if (!materialize_all() || !pops(p, np)) return false;
        uint32_t start = pc();
        if (!push_ctrl(opc == 0x02 ? kBlock : opc == 0x03 ? kLoopK : kIf, p, np, res, nr)) return false;
        ctrls[ctrls.n - 1].start_pc = start;
        if (opc == 0x03) {
          label_pc = start;
          seen_loop = true;
        }
        if (opc == 0x04) {
          if (!cond_jump_head(false, cond) || !emit(kNone)) return false;
          ctrls[ctrls.n - 1].else_at = pc() - 1;
        }
        break;
      }
      case 0x05: {  // else
        if (top.kind != kIf) return r.invalid("else without if");
        if (!materialize_top(top.nr) || !pops(top.results, top.nr)) return false;
        if (vals.n != top.height) return r.invalid("type mismatch: values remain at else");
        if (!emit_jmp() || !emit_target(top)) return false;
        code[top.else_at] = pc() - top.else_at;
        mark_label();
        top.else_at = kNone;
        top.kind = kElse;
        top.unreachable = false;
        if (!pushes(top.params, top.np)) return false;
        break;
      }
      case 0x0B: {  // end
        uint32_t slot;
        if (top.kind == kFunc && top.fixups == kNone && local_result(top.nr, &slot)) {
          // no branch targets this end: return the local directly (the code below then
          // emits an unreachable second return)
          if (!emit_ret(1, slot)) return false;
        }
        if (!materialize_top(top.nr)) return false;
        Ctrl c{};
        if (!pop_ctrl(&c)) return false;
        if (c.kind == kIf) {
          // an if without else passes its parameters through as results
          if (c.np != c.nr || (c.np && std::memcmp(c.params, c.results, c.np) != 0))
            return r.invalid("type mismatch: if without else must have matching types");
          code[c.else_at] = pc() - c.else_at;
        }
        patch_chain(c.fixups, pc());
        mark_label();
        if (c.kind == kFunc) {
          if (!emit_ret(c.nr, canon(0))) return false;
        } else if (!pushes(c.results, c.nr)) {
          return false;
        }
        break;
      }
      case 0x0C:
      case 0x0D: {  // br, br_if
        uint32_t d = r.u32(), cond = kNone;
        if (r.failed()) return false;
        if (d >= ctrls.n) return r.invalid("unknown label");
        if (opc == 0x0D && !pop(ValType::I32, &cond)) return false;
        Ctrl& t = ctrls[ctrls.n - 1 - d];
        uint32_t n;
        const ValType* lt = label_types(t, &n);
        if (!check_top(lt, n)) return false;
        if (opc == 0x0C) {
          if (!(t.kind == kFunc ? emit_return() : branch(t, kNone))) return false;
          set_unreachable();
        } else {
          if (!branch(t, cond)) return false;
          Ctrl& cur = ctrls[ctrls.n - 1];
          if (vals.n - cur.height < n) {
            // Unreachable code: br_if pops the label's operands from the polymorphic stack
            // and pushes them back with the label's types, so from here on they are
            // concrete (an i64 label value is no i32 operand; `unreached-invalid`).
            vals.n = locs.n = cur.height;
            if (!pushes(lt, n)) return false;
          } else {
            // the kept operands are canonical now; their types narrow to the label's
            for (uint32_t i = 0; i < n; i++) vals[vals.n - n + i] = uint8_t(lt[i]);
          }
        }
        break;
      }
      case 0x0E: {  // br_table
        uint32_t n = r.u32(), idx;
        if (r.failed()) return false;
        if (n > uint32_t(r.end - r.p)) return r.malformed("unexpected end: br_table");
        if (!pop(ValType::I32, &idx)) return false;
        if (!materialize_all()) return false;
        if (!emit_op(op::kBrTable) || !emit(idx) || !emit(n)) return false;
        uint32_t arity = kNone;
        for (uint32_t i = 0; i <= n && !r.failed(); i++) {
          uint32_t d = r.u32();
          if (r.failed()) return false;
          if (d >= ctrls.n) return r.invalid("unknown label");
          Ctrl& t = ctrls[ctrls.n - 1 - d];
          uint32_t k;
          const ValType* lt = label_types(t, &k);
          if (arity == kNone) arity = k;
          else if (arity != k) return r.invalid("type mismatch: br_table arity");
          if (!check_top(lt, k)) return false;
          if (!emit_target(t) || !emit(k) || !emit(canon(vals.n >= k ? vals.n - k : 0)) ||
              !emit(canon(t.height)))
            return false;
        }
        if (r.failed()) return false;
        set_unreachable();
        break;
      }
      case 0x0F: {  // return
        const Ctrl& f = ctrls[0];
        if (!check_top(f.results, f.nr) || !emit_return()) return false;
        set_unreachable();
        break;
      }
      case 0x10: {
        uint32_t f = r.u32();
        if (r.failed()) return false;
        if (f >= m->func_types.n) return r.invalid("unknown function");
        const FuncType& cf = m->types[m->func_types[f]];
        if (!materialize_top(cf.nparams)) return false;
        uint32_t base = canon(vals.n >= cf.nparams ? vals.n - cf.nparams : 0);
        if (!pops(cf.params(), cf.nparams)) return false;
        // a function of this module is never a host function and runs in this instance
        if (f >= m->nfunc_imports) {  // the offset to the body is filled in later (load.cpp)
          if (addi_before(pc())) {
            pair_into(op::kAddCallDirect);  // the argument just computed: `f(n - 1)`
          } else if (!emit_op(op::kCallDirect)) {
            return false;
          }
          if (!m->call_fixups.push(a, pc()) || !m->call_fixups.push(a, f - m->nfunc_imports)) return oom();
          if (!emit(0) || !emit(base)) return false;
        } else if (!emit_op(op::kCall) || !emit(f) || !emit(base)) {
          return false;
        }
        if (!pushes(cf.results(), cf.nresults)) return false;
        break;
      }
      case 0x11: {
        uint32_t ti = r.u32();
        uint32_t tab, idx;
        if (r.failed()) return false;
        if (!table_index(&tab)) return false;
        if (ti >= m->types.n) return r.invalid("unknown type");
        if (m->tables[tab].elem != ValType::FuncRef) return r.invalid("type mismatch: call_indirect table must hold funcref");
        if (!pop(ValType::I32, &idx)) return false;
        const FuncType& cf = m->types[ti];
        if (!materialize_top(cf.nparams)) return false;
        uint32_t base = canon(vals.n >= cf.nparams ? vals.n - cf.nparams : 0);
        if (!pops(cf.params(), cf.nparams)) return false;
        if (!emit_op(op::kCallIndirect) || !emit(ti) || !emit(tab) || !emit(idx) || !emit(base)) return false;
        if (!pushes(cf.results(), cf.nresults)) return false;
        break;
      }
      case 0x1A: {
        if (!pop(kUnknown)) return false;
        break;
      }
      case 0x1B:
      case 0x1C: {
        uint8_t want = kUnknown;
        if (opc == 0x1C) {
          uint32_t n = r.u32();
          if (r.failed()) return false;
          if (n != 1) return r.invalid("invalid result arity");
          uint8_t b = r.u8();
          if (r.failed()) return false;
          if (!single(ValType(b))) return r.malformed("malformed value type");
          want = b;
        }
        uint32_t sc, s1, s2;
        if (!pop(ValType::I32, &sc)) return false;
        uint8_t t1, t2;
        if (!pop(want, &t1, &s1, true)) return false;
        uint32_t h1 = vals.n;
        if (!pop(want, &t2, &s2, true)) return false;
        uint32_t h2 = vals.n;
        if (opc == 0x1B) {
          if ((t1 != kUnknown && !is_num(t1)) || (t2 != kUnknown && !is_num(t2)))
            return r.invalid("type mismatch: select needs numeric operands");
          if (t1 != kUnknown && t2 != kUnknown && t1 != t2) return r.invalid("type mismatch");
          want = t1 != kUnknown ? t1 : t2;
        }
        // constants below 2^32 ride in the instruction; others go to their slots
        bool k1 = is_const(s1) && kvals[s1 & ~kTagMask] <= 0xFFFFFFFFu;
        bool k2 = is_const(s2) && kvals[s2 & ~kTagMask] <= 0xFFFFFFFFu;
        uint32_t w1 = k1 ? uint32_t(kvals[s1 & ~kTagMask]) : s1, w2 = k2 ? uint32_t(kvals[s2 & ~kTagMask]) : s2;
        if (!k1 && is_deferred(s1)) {
          if (!emit_const(t1, s1, canon(h1))) return false;
          w1 = canon(h1);
        }
        if (!k2 && is_deferred(s2)) {
          if (!emit_const(t2, s2, canon(h2))) return false;
          w2 = canon(h2);
        }
        uint32_t o = k2 ? (k1 ? op::kSelectImm + 2 : op::kSelectImm) : k1 ? op::kSelectImm + 1 : op::kSelect;
        op_start = pc();
        if (!emit_op(o) || !emit(w2) || !emit(w1) || !emit(sc) || !emit(canon(vals.n))) return false;
        if (!produced(want, pc() - 1)) return false;
        break;
      }
      case 0x20: {
        uint32_t idx = r.u32();
        ValType t = ValType::I32;
        if (r.failed() || !local_type(idx, &t)) return false;
        if (!push(uint8_t(t), idx)) return false;  // no code: readers use the local's slot
        break;
      }
      case 0x21:
      case 0x22: {
        uint32_t idx = r.u32();
        if (r.failed() || !local_set(idx, opc == 0x22)) return false;
        break;
      }
      case 0x23:
      case 0x24: {
        uint32_t g = r.u32();
        if (r.failed()) return false;
        if (g >= m->globals.n) return r.invalid("unknown global");
        const GlobalDef& gd = m->globals[g];
        if (opc == 0x24) {
          uint32_t src;
          if (!gd.mut) return r.invalid("global is immutable");
          if (!pop(gd.type, &src) || !emit_op(opc) || !emit(src) || !emit(g)) return false;
        } else {
          if (!emit_op(opc) || !emit(canon(vals.n)) || !emit(g) || !produced(uint8_t(gd.type), pc() - 2))
            return false;
        }
        break;
      }
      case 0x25:
      case 0x26: {
        uint32_t t;
        if (!table_index(&t)) return false;
        ValType et = m->tables[t].elem;
        if (opc == 0x25) {
          if (!stack_style(opc, 1) || !emit(t) || !pop(ValType::I32) || !push(et)) return false;
        } else {
          if (!stack_style(opc, 2) || !emit(t) || !pop(et) || !pop(ValType::I32)) return false;
        }
        break;
      }
      case 0x3F: {
        if (!zero_byte()) return false;
        if (m->memories.n == 0) return r.invalid("unknown memory 0");
        if (!emit_op(opc) || !emit(canon(vals.n)) || !produced(0x7F, pc() - 1)) return false;
        break;
      }
      case 0x40: {
        uint32_t src;
        if (!zero_byte()) return false;
        if (m->memories.n == 0) return r.invalid("unknown memory 0");
        if (!pop(ValType::I32, &src)) return false;
        if (!emit_op(opc) || !emit(src) || !emit(canon(vals.n)) || !produced(0x7F, pc() - 1)) return false;
        break;
      }
      case 0x41:
      case 0x42:
      case 0x43:
      case 0x44: {  // constants cost nothing until a consumer needs them in a slot
        uint64_t v = opc == 0x41 ? uint32_t(int32_t(r.sleb(32)))
                   : opc == 0x42 ? uint64_t(r.sleb(64))
                   : opc == 0x43 ? r.fixed32() : r.fixed64();
        static const uint8_t kT[] = {0x7F, 0x7E, 0x7D, 0x7C};
        if (r.failed() || !push_const(kT[opc - 0x41], v)) return false;
        break;
      }
      case 0xD0: {
        uint8_t b = r.u8();
        if (r.failed()) return false;
        if (b != 0x70 && b != 0x6F) return r.malformed("malformed reference type");
        if (!emit_op(opc) || !emit(canon(vals.n)) || !produced(b, pc() - 1)) return false;
        break;
      }
      case 0xD1: {
        uint8_t t;
        uint32_t src;
        if (!pop(kUnknown, &t, &src)) return false;
        if (t != kUnknown && !is_ref(t)) return r.invalid("type mismatch: ref.is_null needs a reference");
        if (!emit_op(opc) || !emit(src) || !emit(canon(vals.n)) || !produced(0x7F, pc() - 1)) return false;
        break;
      }
      case 0xD2: {
        uint32_t f = r.u32();
        if (r.failed()) return false;
        if (f >= m->func_types.n) return r.invalid("unknown function");
        if (!refs || !refs[f]) return r.invalid("undeclared function reference");
        if (!emit_op(opc) || !emit(canon(vals.n)) || !emit(f) || !produced(0x70, pc() - 2)) return false;
        break;
      }
      case 0xFC:
        if (!fc_op()) return false;
        break;
      default:
        if (opc >= 0x28 && opc <= 0x3E) {
          static const uint8_t kAlign[] = {2, 3, 2, 3, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2,
                                           2, 3, 2, 3, 0, 1, 0, 1, 2};
          static const uint8_t kType[] = {0x7F, 0x7E, 0x7D, 0x7C, 0x7F, 0x7F, 0x7F, 0x7F,
                                          0x7E, 0x7E, 0x7E, 0x7E, 0x7E, 0x7E, 0x7F, 0x7E,
                                          0x7D, 0x7C, 0x7F, 0x7F, 0x7E, 0x7E, 0x7E};
          uint32_t k = opc - 0x28, offset = 0, addr = 0, val = 0;
          if (!memarg(kAlign[k], &offset)) return false;
          // a constant address (C globals) folds with the offset into one absolute address
          uint32_t imm = 0;
          if (opc <= 0x35) {
            if (!pop(0x7F, nullptr, &addr, true)) return false;
            uint32_t x, kk;
            if (imm_of(addr, 0x7F, &imm) && uint64_t(imm) + offset <= 0xFFFFFFFFu) {
              if (!emit_op(op::kAbs + k) || !emit(imm + offset)) return false;
            } else if (is_addk(addr) && offset == 0) {
              addk_parts(addr, &x, &kk);
              uint32_t o = take_acc(x) ? op::kLoadAcc + op::kWrapAS * 16 + k : op::kWrap + k;
              op_start = pc();
              pair_candidate(o);
              if (!emit_op(o) || !emit(x) || !emit(kk)) return false;
            } else {
              if (is_deferred(addr) && !emit_const(0x7F, addr, canon(vals.n))) return false;
              if (is_deferred(addr)) addr = canon(vals.n);
              uint32_t o = take_acc(addr) ? op::kLoadAcc + op::kBaseAS * 16 + k : opc;
              op_start = pc();
              if (o == 0x28 && addi_before(pc())) {  // `p += 4; x = *p`
                pair_into(op::kAddLoad);
                if (!emit(addr) || !emit(offset)) return false;
              } else {
                pair_candidate(o);
                if (!emit_op(o) || !emit(addr) || !emit(offset)) return false;
              }
            }
            if (!emit(canon(vals.n)) || !produced(kType[k], pc() - 1)) return false;
          } else {
            if (!pop(kType[k], nullptr, &val) || !pop(0x7F, nullptr, &addr, true)) return false;
            uint32_t x, kk;
            uint32_t sk = opc - 0x36;  // store variants are numbered from 0x36
            if (imm_of(addr, 0x7F, &imm) && uint64_t(imm) + offset <= 0xFFFFFFFFu) {
              uint32_t o = take_acc(val) ? op::kStoreAcc + op::kAbsV * 16 + sk : op::kAbs + k;
              if (!emit_op(o)) return false;
              if (!emit(val) || !emit(imm + offset)) return false;
            } else if (is_addk(addr) && offset == 0) {
              addk_parts(addr, &x, &kk);
              uint32_t o = take_acc(val) ? op::kStoreAcc + op::kWrapV * 16 + sk
                           : take_acc(x) ? op::kStoreAcc + op::kWrapAddr * 16 + sk
                                         : op::kWrap + k;
              if (!emit_op(o) || !emit(x) || !emit(val) || !emit(kk)) return false;
            } else {
              if (is_deferred(addr) && !emit_const(0x7F, addr, canon(vals.n))) return false;
              if (is_deferred(addr)) addr = canon(vals.n);
              uint32_t o = take_acc(val) ? op::kStoreAcc + op::kBaseV * 16 + sk
                                            : opc;
              if (!emit_op(o) || !emit(addr) || !emit(val) || !emit(offset)) return false;
            }
          }
          break;
        }
        if (!numeric(opc)) return false;
    }
  }
  if (r.failed()) return false;
  if (r.p != r.end) return r.malformed("section size mismatch: END opcode expected");
  return true;
}

}  // namespace

bool compile_function(Module* m, Reader& r, uint32_t def_index, const uint8_t* refs_declared) {
  r.section = "code";
  uint32_t type = m->func_types[m->nfunc_imports + def_index];
  for (uint32_t i = 0; i < kFuncHeaderWords; i++)
    if (!m->code.push(m->alloc, 0)) return r.fail(Error::OutOfMemory, "out of memory");
  FuncCode fc{m->code.n, 0, 0, type};
  Compiler c(m, r, refs_declared);
  if (!c.body(type)) {
    if (!r.failed()) r.malformed("unexpected end");
    return false;
  }
  fc.nlocals = c.nlocals;
  fc.max_height = c.max_height;
  uint64_t slots = uint64_t(c.nlocals) + c.max_height;
  if (slots > 0xFFFFFFFFu) return r.fail(Error::Invalid, "function frame too large for this interpreter");
  uint32_t* header = m->code.p + fc.code - kFuncHeaderWords;
  header[kHeadParams] = m->types[type].nparams;
  header[kHeadLocals] = c.nlocals;
  header[kHeadSlots] = uint32_t(slots);
  if (!m->funcs.push(m->alloc, fc)) return r.fail(Error::OutOfMemory, "out of memory");
  return true;
}

}  // namespace wasm
}  // namespace k32
