// The compiler's loop over a function body and what every group shares: the operand stack
// (with constants and `x + k` kept pending until a consumer needs them in a slot), the
// control stack, copies between slots and the immediates' decoding (compiler.h).
//
// The groups' files are compiled as part of this one translation unit (included at the
// end): the compiler is then optimised as a whole, as one file would be, which keeps it
// about a third smaller at -Os than separately compiled parts.
#include "compiler.h"

namespace k32 {
namespace wasm {
namespace compiler {

const ValType kSingle[] = {ValType::I32, ValType::I64, ValType::F32, ValType::F64, ValType::FuncRef, ValType::ExternRef};
const ValType* single(ValType t) {
  for (const ValType& s : kSingle)
    if (s == t) return &s;
  return nullptr;
}

Compiler::~Compiler() {
  vals.release(a);
  locs.release(a);
  kvals.release(a);
  ctrls.release(a);
  locals.release(a);
  head_refs.release(a);
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
    if (!single(ValType(b))) return r.malformed("malformed value type");
    if (n && !locals.push(a, LocalRun{uint32_t(total), ValType(b)})) return oom();
  }
  if (r.failed()) return false;
  if (total > kMaxLocals) return r.fail(Error::Invalid, "too many locals for this interpreter");
  nlocals = uint32_t(total);
  nparams = ft.nparams;

  body_start = straight_from = pc();
  if (!push_ctrl(kFunc, nullptr, 0, ft.results(), ft.nresults)) return false;
  ctrls[0].height = 0;

  while (ctrls.n && !r.failed()) {
    uint8_t opc = r.u8();
    if (r.failed()) return false;
    op_start = pc();
    bool ok;
    switch (opc::info(opc).group()) {
      case opc::Group::Control: ok = control(opc); break;
      case opc::Group::Parametric: ok = parametric(opc); break;
      case opc::Group::Variable: ok = variable(opc); break;
      case opc::Group::Memory: ok = memory(opc); break;
      case opc::Group::Constant: ok = constant(opc); break;
      case opc::Group::Numeric: ok = numeric(opc); break;
      case opc::Group::Reference: ok = reference(opc); break;
      case opc::Group::Prefix: ok = prefixed(); break;
      default: return r.malformed("illegal opcode");
    }
    if (!ok) return false;
  }
  if (r.failed()) return false;
  if (r.p != r.end) return r.malformed("section size mismatch: END opcode expected");
  return true;
}

// 0xFC and a sub-opcode: the saturating truncations are plain unary operators; the rest
// work on tables and memory.
bool Compiler::prefixed() {
  uint32_t sub = r.u32();
  if (r.failed()) return false;
  if (sub >= opc::kFCCount) return r.malformed("illegal opcode");
  switch (opc::kFCTable.of[sub].group()) {
    case opc::Group::Numeric: {
      opc::Info in = opc::kFCTable.of[sub];
      uint32_t sa;
      if (!pop(in.in1(), nullptr, &sa)) return false;
      if (!emit_op(op::kFC + sub) || !emit(sa) || !emit(canon(vals.n))) return false;
      return produced(in.out(), pc() - 1);
    }
    case opc::Group::Memory: return bulk_memory(sub);
    default: return bulk_table(sub);
  }
}

// ---- the operand stack ----

bool Compiler::push(uint8_t t, uint32_t loc) {
  uint32_t h = vals.n;
  if (!vals.push(a, t) || !locs.push(a, loc == kNone ? canon(h) : loc)) return oom();
  if (vals.n > max_height) max_height = vals.n;
  return true;
}
bool Compiler::push_const(uint8_t t, uint64_t v) {
  if (!kvals.push(a, v)) return oom();
  return push(t, kConst | (kvals.n - 1));
}
bool Compiler::push_addk(uint32_t x, uint32_t k) {
  if (!kvals.push(a, uint64_t(x) << 32 | k)) return oom();
  return push(kI32, kAddK | (kvals.n - 1));
}
// Writes a deferred operand of type t into `dst`.
bool Compiler::emit_const(uint8_t t, uint32_t loc, uint32_t dst) {
  if (is_addk(loc)) {
    uint32_t x, k;
    addk_parts(loc, &x, &k);
    uint32_t saved = op_start;
    if (!emit_binary(opc::kI32Add, x, k, true, dst)) return false;
    note_producer(pc() - 1);
    op_start = saved;
    return true;
  }
  uint64_t v = const_value(loc);
  if (t == kF64) fconst_at = pc();  // a compare-and-jump after it may carry it (float_jump_head)
  if (t == kI64 || t == kF64) return emit_op(op::kI64Const) && emit(dst) && emit(uint32_t(v)) && emit(uint32_t(v >> 32));
  const_at = pc();  // a jump right after it may carry it (compile_control.inc: emit_jmp)
  return emit_op(op::kI32Const) && emit(dst) && emit(uint32_t(v));
}
// Pops one operand; *slot receives where it lives (any slot in unreachable code). A
// deferred constant is written to the operand's canonical slot first, unless `raw`.
bool Compiler::pop(uint8_t expect, uint8_t* got, uint32_t* slot, bool raw) {
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
// An operand popped raw from height h, now needed in a slot: a deferred one is written to
// its canonical slot.
bool Compiler::pop_to_slot(uint8_t t, uint32_t loc, uint32_t h, uint32_t* slot) {
  *slot = loc;
  if (!is_deferred(loc)) return true;
  *slot = canon(h);
  return emit_const(t, loc, canon(h));
}
bool Compiler::pops(const ValType* ts, uint32_t n) {
  for (uint32_t i = n; i-- > 0;)
    if (!pop(uint8_t(ts[i]))) return false;
  return true;
}
bool Compiler::pushes(const ValType* ts, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!push(ts[i])) return false;
  return true;
}
// Type-checks the top operands against ts without consuming them.
bool Compiler::check_top(const ValType* ts, uint32_t n) {
  uint32_t saved = vals.n;
  bool ok = pops(ts, n);
  vals.n = locs.n = saved;
  return ok;
}

// Puts operand h into its canonical slot (a copy from the local it still refers to).
bool Compiler::materialize(uint32_t h) {
  if (locs[h] == canon(h)) return true;
  if (is_deferred(locs[h])) {
    if (!emit_const(vals[h], locs[h], canon(h))) return false;
  } else if (!emit_copy(locs[h], canon(h))) {
    return false;
  }
  locs[h] = canon(h);
  return true;
}
bool Compiler::materialize_top(uint32_t k) {
  for (uint32_t h = vals.n > k ? vals.n - k : 0; h < vals.n; h++)
    if (!materialize(h)) return false;
  return true;
}
// Before local `l` changes, operands still reading it must take their own copy.
bool Compiler::detach_local(uint32_t l) {
  for (uint32_t h = 0; h < vals.n; h++) {
    uint32_t x = locs[h], k;
    if (is_addk(x)) addk_parts(locs[h], &x, &k);
    if (x == l && !materialize(h)) return false;
  }
  return true;
}
// Removes the instructions from `at` on (a producer being fused into its consumer).
void Compiler::truncate(uint32_t at) {
  code.n = at;
  last_dst_end = prev_dst_end = kNone;
  if (mirror_at != kNone && mirror_at >= at) mirror_at = kNone;
  copy_end = kNone;
  if (const_at != kNone && const_at >= at) const_at = kNone;
  if (fconst_at != kNone && fconst_at >= at) fconst_at = kNone;
  if (pair_at != kNone && pair_at + 4 > at) pair_at = kNone;
}
// Consecutive copies (a loop rotating its variables, values entering a block) become one
// instruction: kCopy, then kCopy2, then kCopyN with a count. They still run in order.
bool Compiler::emit_copy(uint32_t src, uint32_t dst) {
  if (copy_end == pc() && label_pc != pc()) {
    uint32_t o = last_emitted_op;
    if (o == op::kAddCopyN) {
      code[copy_at + 1 + op::kAddEnd + op::kCopyCount]++;
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
// Stack-style instruction: inputs go to their canonical slots; returns the "top" slot.
bool Compiler::stack_style(uint32_t opcode, uint32_t ninputs) {
  if (!materialize_top(ninputs)) return false;
  return emit_op(opcode) && emit(canon(vals.n));
}

// ---- the control stack ----

bool Compiler::push_ctrl(Kind k, const ValType* p, uint32_t np, const ValType* res, uint32_t nr) {
  Ctrl c{k, false, p, np, res, nr, vals.n, pc(), kNone, kNone, next_ctrl_id++, kNone, 0};
  if (!ctrls.push(a, c)) return oom();
  return pushes(p, np);
}
bool Compiler::pop_ctrl(Ctrl* out) {
  if (ctrls.n == 0) return r.malformed("unexpected end");
  Ctrl& c = ctrls[ctrls.n - 1];
  if (!pops(c.results, c.nr)) return false;
  if (vals.n != c.height) return r.invalid("type mismatch: values remain at end of block");
  *out = c;
  if (c.head_table != kNone) head_refs.n = c.head_refs;  // loops nest: the refs form a stack
  ctrls.n--;
  return true;
}
void Compiler::set_unreachable() {
  Ctrl& c = ctrls[ctrls.n - 1];
  vals.n = locs.n = c.height;
  c.unreachable = true;
}
const ValType* Compiler::label_types(const Ctrl& c, uint32_t* n) {
  if (c.kind == kLoopK) {
    *n = c.np;
    return c.params;
  }
  *n = c.nr;
  return c.results;
}

// ---- immediates ----

bool Compiler::local_type(uint32_t idx, ValType* t) {
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

bool Compiler::block_type(const ValType** p, uint32_t* np, const ValType** res, uint32_t* nr) {
  if (r.p < r.end && *r.p == 0x40) {  // 0x40: the empty type
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

bool Compiler::memarg(uint32_t natural_log2, uint32_t* offset) {
  if (m->memories.n == 0) return r.invalid("unknown memory 0");
  uint32_t align = r.u32();
  *offset = r.u32();
  if (r.failed()) return false;
  if (align > natural_log2) return r.invalid("alignment must not be larger than natural");
  return true;
}

bool Compiler::zero_byte() {
  uint8_t b = r.u8();
  if (r.failed()) return false;
  if (b != 0) return r.malformed("zero byte expected");
  return true;
}

bool Compiler::table_index(uint32_t* t) {
  *t = r.u32();
  if (r.failed()) return false;
  if (*t >= m->tables.n) return r.invalid("unknown table");
  return true;
}

// The immediate form of a deferred constant operand of type t (i64: only if it fits 32
// signed bits; f64: only if it is an f32 widened, bit for bit, NaNs included).
bool Compiler::imm_of(uint32_t loc, uint8_t t, uint32_t* imm) const {
  if (!is_const(loc)) return false;
  uint64_t v = const_value(loc);
  if (t == kI64 && uint64_t(int64_t(int32_t(uint32_t(v)))) != v) return false;
  if (t == kF64) {
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

}  // namespace compiler

bool compile_function(Module* m, Reader& r, uint32_t def_index, const uint8_t* refs_declared) {
  r.section = "code";
  uint32_t type = m->func_types[m->nfunc_imports + def_index];
  for (uint32_t i = 0; i < kFuncHeaderWords; i++)
    if (!m->code.push(m->alloc, 0)) return r.fail(Error::OutOfMemory, "out of memory");
  FuncCode fc{m->code.n, 0, 0, type};
  compiler::Compiler c(m, r, refs_declared);
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

#include "compile_control.inc"
#include "compile_fused.inc"
#include "compile_memory.inc"
#include "compile_numeric.inc"
#include "compile_variable.inc"
