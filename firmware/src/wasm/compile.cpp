// Validation of function bodies (the spec's algorithm: operand and control stacks) and, in
// the same pass, compilation to the internal code of ops.h. Stack heights are static in
// WebAssembly, so every branch gets its target and value move precomputed here.
#include "ops.h"
#include "reader.h"

namespace k32 {
namespace wasm {

namespace {

constexpr uint8_t kUnknown = 0;  // the bottom type of unreachable code
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kMaxLocals = 50000;  // beyond this no call could fit a bounded stack

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
  Vec<uint8_t> vals;
  Vec<Ctrl> ctrls;
  Vec<LocalRun> locals;
  uint32_t nlocals = 0;
  uint32_t max_height = 0;

  Compiler(Module* m_, Reader& r_, const uint8_t* refs_)
      : m(m_), r(r_), a(m_->alloc), refs(refs_), code(m_->code) {}
  ~Compiler() {
    vals.release(a);
    ctrls.release(a);
    locals.release(a);
  }

  bool oom() { return r.fail(Error::OutOfMemory, "out of memory"); }
  bool emit(uint32_t w) { return code.push(a, w) || oom(); }
  uint32_t pc() const { return code.n; }

  bool push(uint8_t t) {
    if (!vals.push(a, t)) return oom();
    if (vals.n > max_height) max_height = vals.n;
    return true;
  }
  bool push(ValType t) { return push(uint8_t(t)); }
  // Pops one operand; returns false on a type error. *got receives its type.
  bool pop(uint8_t expect, uint8_t* got = nullptr) {
    Ctrl& c = ctrls[ctrls.n - 1];
    uint8_t t;
    if (vals.n == c.height) {
      if (!c.unreachable) return r.invalid("type mismatch: operand stack underflow");
      t = kUnknown;
    } else {
      t = vals.p[--vals.n];
    }
    if (t != expect && t != kUnknown && expect != kUnknown) return r.invalid("type mismatch");
    if (got) *got = t == kUnknown ? expect : t;
    return true;
  }
  bool pop(ValType t) { return pop(uint8_t(t)); }
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
    vals.n = c.height;
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
      code[head] = target;
      head = next;
    }
  }
  bool emit_target(Ctrl& t) {
    if (t.kind == kLoopK) return emit(t.start_pc);
    if (!emit(t.fixups)) return false;
    t.fixups = pc() - 1;
    return true;
  }
  // A branch whose values already sit where the label wants them is a plain jump.
  bool branch(Ctrl& t, uint32_t plain, uint32_t adjusting) {
    uint32_t keep;
    label_types(t, &keep);
    if (vals.n - keep == t.height) return emit(plain) && emit_target(t);
    return emit(adjusting) && emit_target(t) && emit(keep) && emit(nlocals + t.height);
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

  bool memarg(uint32_t natural_log2) {
    if (m->memories.n == 0) return r.invalid("unknown memory 0");
    uint32_t align = r.u32();
    uint32_t offset = r.u32();
    if (r.failed()) return false;
    if (align > natural_log2) return r.invalid("alignment must not be larger than natural");
    return emit(offset);
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

  bool numeric(uint32_t opc);
  bool fc_op();
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
  for (const NumSig& s : kNumSigs) {
    if (opc < s.lo || opc > s.hi) continue;
    if (s.in2 && !pop(s.in2)) return false;
    if (!pop(s.in1)) return false;
    return emit(opc) && push(s.out);
  }
  return r.malformed("illegal opcode");
}

bool Compiler::fc_op() {
  uint32_t sub = r.u32();
  if (r.failed()) return false;
  const uint8_t I = 0x7F;
  if (sub <= 7) {
    static const uint8_t kIn[] = {0x7D, 0x7D, 0x7C, 0x7C, 0x7D, 0x7D, 0x7C, 0x7C};
    static const uint8_t kOut[] = {0x7F, 0x7F, 0x7F, 0x7F, 0x7E, 0x7E, 0x7E, 0x7E};
    return pop(kIn[sub]) && emit(op::kFC + sub) && push(kOut[sub]);
  }
  switch (sub) {
    case 8: {  // memory.init
      uint32_t seg = r.u32();
      if (!zero_byte()) return false;
      if (!m->has_datacount) return r.malformed("data count section required");
      if (m->memories.n == 0) return r.invalid("unknown memory 0");
      if (seg >= m->datacount) return r.invalid("unknown data segment");
      return pop(I) && pop(I) && pop(I) && emit(op::kFC + 8) && emit(seg);
    }
    case 9: {  // data.drop
      uint32_t seg = r.u32();
      if (r.failed()) return false;
      if (!m->has_datacount) return r.malformed("data count section required");
      if (seg >= m->datacount) return r.invalid("unknown data segment");
      return emit(op::kFC + 9) && emit(seg);
    }
    case 10:
      if (!zero_byte() || !zero_byte()) return false;
      if (m->memories.n == 0) return r.invalid("unknown memory 0");
      return pop(I) && pop(I) && pop(I) && emit(op::kFC + 10);
    case 11:
      if (!zero_byte()) return false;
      if (m->memories.n == 0) return r.invalid("unknown memory 0");
      return pop(I) && pop(I) && pop(I) && emit(op::kFC + 11);
    case 12: {  // table.init seg table
      uint32_t seg = r.u32();
      uint32_t t;
      if (r.failed() || !table_index(&t)) return false;
      if (seg >= m->elems.n) return r.invalid("unknown elem segment");
      if (m->elems[seg].type != m->tables[t].elem) return r.invalid("type mismatch");
      return pop(I) && pop(I) && pop(I) && emit(op::kFC + 12) && emit(seg) && emit(t);
    }
    case 13: {
      uint32_t seg = r.u32();
      if (r.failed()) return false;
      if (seg >= m->elems.n) return r.invalid("unknown elem segment");
      return emit(op::kFC + 13) && emit(seg);
    }
    case 14: {  // table.copy dst src
      uint32_t d, s;
      if (!table_index(&d) || !table_index(&s)) return false;
      if (m->tables[d].elem != m->tables[s].elem) return r.invalid("type mismatch");
      return pop(I) && pop(I) && pop(I) && emit(op::kFC + 14) && emit(d) && emit(s);
    }
    case 15: {  // table.grow
      uint32_t t;
      if (!table_index(&t)) return false;
      return pop(I) && pop(uint8_t(m->tables[t].elem)) && emit(op::kFC + 15) && emit(t) && push(I);
    }
    case 16: {
      uint32_t t;
      if (!table_index(&t)) return false;
      return emit(op::kFC + 16) && emit(t) && push(I);
    }
    case 17: {
      uint32_t t;
      if (!table_index(&t)) return false;
      return pop(I) && pop(uint8_t(m->tables[t].elem)) && pop(I) && emit(op::kFC + 17) && emit(t);
    }
  }
  return r.malformed("illegal opcode");
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
    ValType t;
    uint8_t b = r.u8();
    if (r.failed()) return false;
    total += n;
    if (total > 0xFFFFFFFFull) return r.malformed("too many locals");
    if (b != 0x7F && b != 0x7E && b != 0x7D && b != 0x7C && b != 0x70 && b != 0x6F)
      return r.malformed("malformed value type");
    t = ValType(b);
    if (n && !locals.push(a, LocalRun{uint32_t(total), t})) return oom();
  }
  if (r.failed()) return false;
  if (total > kMaxLocals) return r.fail(Error::Invalid, "too many locals for this interpreter");
  nlocals = uint32_t(total);

  if (!push_ctrl(kFunc, nullptr, 0, ft.results(), ft.nresults)) return false;
  ctrls[0].height = 0;

  while (ctrls.n && !r.failed()) {
    uint8_t opc = r.u8();
    if (r.failed()) return false;
    Ctrl& top = ctrls[ctrls.n - 1];
    switch (opc) {
      case 0x00:
        if (!emit(op::kUnreachable)) return false;
        set_unreachable();
        break;
      case 0x01: break;  // nop
      case 0x02:
      case 0x03:
      case 0x04: {
        const ValType *p = nullptr, *res = nullptr;
        uint32_t np = 0, nr = 0;
        if (!block_type(&p, &np, &res, &nr)) return false;
        if (opc == 0x04 && !pop(ValType::I32)) return false;
        if (!pops(p, np)) return false;
        if (opc == 0x03 && !emit(op::kLoop)) return false;
        uint32_t start = opc == 0x03 ? pc() - 1 : pc();
        if (!push_ctrl(opc == 0x02 ? kBlock : opc == 0x03 ? kLoopK : kIf, p, np, res, nr)) return false;
        ctrls[ctrls.n - 1].start_pc = start;
        if (opc == 0x04) {
          if (!emit(op::kJmpUnless) || !emit(kNone)) return false;
          ctrls[ctrls.n - 1].else_at = pc() - 1;
        }
        break;
      }
      case 0x05: {  // else
        if (top.kind != kIf) return r.invalid("else without if");
        if (!pops(top.results, top.nr)) return false;
        if (vals.n != top.height) return r.invalid("type mismatch: values remain at else");
        if (!emit(op::kJmp) || !emit_target(top)) return false;
        code[top.else_at] = pc();
        top.else_at = kNone;
        top.kind = kElse;
        top.unreachable = false;
        if (!pushes(top.params, top.np)) return false;
        break;
      }
      case 0x0B: {  // end
        Ctrl c{};
        if (!pop_ctrl(&c)) return false;
        if (c.kind == kIf) {
          // an if without else passes its parameters through as results
          if (c.np != c.nr || (c.np && std::memcmp(c.params, c.results, c.np) != 0))
            return r.invalid("type mismatch: if without else must have matching types");
          code[c.else_at] = pc();
        }
        patch_chain(c.fixups, pc());
        if (c.kind == kFunc) {
          if (!emit(op::kReturn) || !emit(c.nr)) return false;
        } else if (!pushes(c.results, c.nr)) {
          return false;
        }
        break;
      }
      case 0x0C:
      case 0x0D: {  // br, br_if
        uint32_t d = r.u32();
        if (r.failed()) return false;
        if (d >= ctrls.n) return r.invalid("unknown label");
        if (opc == 0x0D && !pop(ValType::I32)) return false;
        Ctrl& t = ctrls[ctrls.n - 1 - d];
        uint32_t n;
        const ValType* lt = label_types(t, &n);
        if (!pops(lt, n)) return false;
        if (opc == 0x0C) {
          if (!pushes(lt, n)) return false;  // restore for the emission height
          bool ok = t.kind == kFunc ? emit(op::kReturn) && emit(t.nr)
                                    : branch(t, op::kJmp, op::kBr);
          if (!ok) return false;
          set_unreachable();
        } else {
          if (!pushes(lt, n)) return false;
          if (!branch(t, op::kJmpIf, op::kBrIf)) return false;
        }
        break;
      }
      case 0x0E: {  // br_table
        uint32_t n = r.u32();
        if (r.failed()) return false;
        if (n > uint32_t(r.end - r.p)) return r.malformed("unexpected end: br_table");
        if (!pop(ValType::I32)) return false;
        if (!emit(op::kBrTable) || !emit(n)) return false;
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
          // check the label's types without consuming the operands
          uint32_t saved = vals.n;
          if (!pops(lt, k)) return false;
          vals.n = saved;
          if (!emit_target(t) || !emit(k) || !emit(nlocals + t.height)) return false;
        }
        if (r.failed()) return false;
        set_unreachable();
        break;
      }
      case 0x0F: {  // return
        const Ctrl& f = ctrls[0];
        if (!pops(f.results, f.nr)) return false;
        if (!emit(op::kReturn) || !emit(f.nr)) return false;
        set_unreachable();
        break;
      }
      case 0x10: {
        uint32_t f = r.u32();
        if (r.failed()) return false;
        if (f >= m->func_types.n) return r.invalid("unknown function");
        const FuncType& cf = m->types[m->func_types[f]];
        if (!pops(cf.params(), cf.nparams)) return false;
        if (!emit(op::kCall) || !emit(f)) return false;
        if (!pushes(cf.results(), cf.nresults)) return false;
        break;
      }
      case 0x11: {
        uint32_t ti = r.u32();
        uint32_t tab;
        if (r.failed()) return false;
        if (!table_index(&tab)) return false;
        if (ti >= m->types.n) return r.invalid("unknown type");
        if (m->tables[tab].elem != ValType::FuncRef) return r.invalid("type mismatch: call_indirect table must hold funcref");
        if (!pop(ValType::I32)) return false;
        const FuncType& cf = m->types[ti];
        if (!pops(cf.params(), cf.nparams)) return false;
        if (!emit(op::kCallIndirect) || !emit(ti) || !emit(tab)) return false;
        if (!pushes(cf.results(), cf.nresults)) return false;
        break;
      }
      case 0x1A: {
        if (!pop(kUnknown)) return false;
        if (!emit(op::kDrop)) return false;
        break;
      }
      case 0x1B:
      case 0x1C: {
        uint8_t want = kUnknown;
        if (opc == 0x1C) {
          uint32_t n = r.u32();
          if (r.failed()) return false;
          if (n != 1) return r.invalid("invalid result arity");
          ValType t;
          uint8_t b = r.u8();
          if (r.failed()) return false;
          if (!single(ValType(b))) return r.malformed("malformed value type");
          t = ValType(b);
          want = uint8_t(t);
        }
        if (!pop(ValType::I32)) return false;
        uint8_t t1, t2;
        if (!pop(want, &t1) || !pop(want, &t2)) return false;
        if (opc == 0x1B) {
          if ((t1 != kUnknown && !is_num(t1)) || (t2 != kUnknown && !is_num(t2)))
            return r.invalid("type mismatch: select needs numeric operands");
          if (t1 != kUnknown && t2 != kUnknown && t1 != t2) return r.invalid("type mismatch");
          want = t1 != kUnknown ? t1 : t2;
        }
        if (!emit(op::kSelect) || !push(want)) return false;
        break;
      }
      case 0x20:
      case 0x21:
      case 0x22: {
        uint32_t idx = r.u32();
        ValType t = ValType::I32;
        if (r.failed() || !local_type(idx, &t)) return false;
        if (opc != 0x20 && !pop(t)) return false;
        if (!emit(opc) || !emit(idx)) return false;
        if (opc != 0x21 && !push(t)) return false;
        break;
      }
      case 0x23:
      case 0x24: {
        uint32_t g = r.u32();
        if (r.failed()) return false;
        if (g >= m->globals.n) return r.invalid("unknown global");
        const GlobalDef& gd = m->globals[g];
        if (opc == 0x24) {
          if (!gd.mut) return r.invalid("global is immutable");
          if (!pop(gd.type)) return false;
        }
        if (!emit(opc) || !emit(g)) return false;
        if (opc == 0x23 && !push(gd.type)) return false;
        break;
      }
      case 0x25:
      case 0x26: {
        uint32_t t;
        if (!table_index(&t)) return false;
        ValType et = m->tables[t].elem;
        if (opc == 0x25) {
          if (!pop(ValType::I32) || !emit(opc) || !emit(t) || !push(et)) return false;
        } else {
          if (!pop(et) || !pop(ValType::I32) || !emit(opc) || !emit(t)) return false;
        }
        break;
      }
      case 0x3F:
      case 0x40: {
        if (!zero_byte()) return false;
        if (m->memories.n == 0) return r.invalid("unknown memory 0");
        if (opc == 0x40 && !pop(ValType::I32)) return false;
        if (!emit(opc) || !push(ValType::I32)) return false;
        break;
      }
      case 0x41: {
        int32_t v = int32_t(r.sleb(32));
        if (r.failed() || !emit(opc) || !emit(uint32_t(v)) || !push(ValType::I32)) return false;
        break;
      }
      case 0x42: {
        uint64_t v = uint64_t(r.sleb(64));
        if (r.failed() || !emit(opc) || !emit(uint32_t(v)) || !emit(uint32_t(v >> 32)) ||
            !push(ValType::I64))
          return false;
        break;
      }
      case 0x43: {
        uint32_t v = r.fixed32();
        if (r.failed() || !emit(opc) || !emit(v) || !push(ValType::F32)) return false;
        break;
      }
      case 0x44: {
        uint64_t v = r.fixed64();
        if (r.failed() || !emit(opc) || !emit(uint32_t(v)) || !emit(uint32_t(v >> 32)) ||
            !push(ValType::F64))
          return false;
        break;
      }
      case 0xD0: {
        uint8_t b = r.u8();
        if (r.failed()) return false;
        if (b != 0x70 && b != 0x6F) return r.malformed("malformed reference type");
        if (!emit(opc) || !push(b)) return false;
        break;
      }
      case 0xD1: {
        uint8_t t;
        if (!pop(kUnknown, &t)) return false;
        if (t != kUnknown && !is_ref(t)) return r.invalid("type mismatch: ref.is_null needs a reference");
        if (!emit(opc) || !push(ValType::I32)) return false;
        break;
      }
      case 0xD2: {
        uint32_t f = r.u32();
        if (r.failed()) return false;
        if (f >= m->func_types.n) return r.invalid("unknown function");
        if (!refs || !refs[f]) return r.invalid("undeclared function reference");
        if (!emit(opc) || !emit(f) || !push(ValType::FuncRef)) return false;
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
          uint32_t k = opc - 0x28;
          if (!emit(opc) || !memarg(kAlign[k])) return false;
          if (opc <= 0x35) {
            if (!pop(ValType::I32) || !push(kType[k])) return false;
          } else {
            if (!pop(kType[k]) || !pop(ValType::I32)) return false;
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

bool compile_function(Module* m, Reader& r, uint32_t def_index, const uint8_t* body_end,
                      const uint8_t* refs_declared) {
  (void)body_end;
  r.section = "code";
  uint32_t type = m->func_types[m->nfunc_imports + def_index];
  FuncCode fc{m->code.n, 0, 0, type};
  Compiler c(m, r, refs_declared);
  if (!c.body(type)) {
    if (!r.failed()) r.malformed("unexpected end");
    return false;
  }
  fc.nlocals = c.nlocals;
  fc.max_height = c.max_height;
  if (!m->funcs.push(m->alloc, fc)) return r.fail(Error::OutOfMemory, "out of memory");
  return true;
}

}  // namespace wasm
}  // namespace k32
