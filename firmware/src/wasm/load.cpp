// Module decoding: sections, imports/exports, segments and constant expressions.
// Function bodies are validated and compiled by the compiler (compiler.h).
#include <cstdio>
#include <cstdlib>
#include <new>

#include "opcodes.h"
#include "reader.h"

namespace k32 {
namespace wasm {

bool compile_function(Module* m, Reader& r, uint32_t def_index, const uint8_t* refs_declared);

namespace {

void* malloc_alloc(void*, size_t n) { return std::malloc(n ? n : 1); }
void malloc_free(void*, void* p) { std::free(p); }
const Allocator kMalloc = {malloc_alloc, malloc_free, nullptr, nullptr};

bool is_valtype(uint8_t b) { return b == 0x7F || b == 0x7E || b == 0x7D || b == 0x7C || b == 0x70 || b == 0x6F; }

bool valid_utf8(const uint8_t* s, uint32_t n) {
  uint32_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    uint32_t len, cp;
    if (c < 0x80) {
      i++;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else return false;
    if (n - i < len) return false;
    for (uint32_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (s[i + k] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

struct Loader {
  Module* m;
  Reader r;
  const Allocator& a;
  uint32_t nfunc_decls = 0;
  bool saw_code = false;
  Vec<uint8_t> refs;  // function indices usable by ref.func inside bodies

  bool oom() { return r.fail(Error::OutOfMemory, "out of memory"); }

  bool name(uint32_t* off, uint32_t* len) {
    uint32_t n = r.u32();
    const uint8_t* s = r.bytes(n);
    if (!s) return false;
    if (!valid_utf8(s, n)) return r.malformed("malformed UTF-8 encoding");
    *off = m->names.n;
    *len = n;
    if (!m->names.reserve(a, m->names.n + n + 1)) return oom();
    std::memcpy(m->names.p + m->names.n, s, n);
    m->names.n += n;
    m->names.p[m->names.n++] = 0;
    return true;
  }

  bool valtype(ValType* t) {
    uint8_t b = r.u8();
    if (r.failed()) return false;
    if (!is_valtype(b)) return r.malformed("malformed value type");
    *t = ValType(b);
    return true;
  }
  bool reftype(ValType* t) {
    uint8_t b = r.u8();
    if (r.failed()) return false;
    if (b != 0x70 && b != 0x6F) return r.malformed("malformed reference type");
    *t = ValType(b);
    return true;
  }

  bool limits(Limits32* l, uint64_t bound, const char* what) {
    uint8_t flag = r.u8();
    if (r.failed()) return false;
    if (flag > 1) return r.malformed("integer too large: limits flag");
    l->min = r.u32();
    l->max = flag ? r.u32() : kNoMax;
    if (r.failed()) return false;
    if (l->min > bound) return r.invalid(what);
    if (flag && l->max > bound) return r.invalid(what);
    if (flag && l->max < l->min) return r.invalid("size minimum must not be greater than maximum");
    return true;
  }

  bool memtype(Limits32* l) { return limits(l, 65536, "memory size must be at most 65536 pages (4GiB)"); }
  bool tabletype(TableDef* t) {
    if (!reftype(&t->elem)) return false;
    uint8_t flag = r.p < r.end ? *r.p : 0;
    if (flag > 1) return r.malformed("integer too large: limits flag");
    return limits(&t->lim, 0xFFFFFFFFull, "table size");
  }
  bool globaltype(ValType* t, bool* mut) {
    if (!valtype(t)) return false;
    uint8_t b = r.u8();
    if (r.failed()) return false;
    if (b > 1) return r.malformed("malformed mutability");
    *mut = b == 1;
    return true;
  }

  // Constant expression of the expected type; global.get only of imported globals.
  bool const_expr(ConstExpr* e, ValType want) {
    uint8_t op = r.u8();
    if (r.failed()) return false;
    ValType got;
    e->op = op;
    e->value = 0;
    switch (op) {
      case opc::kI32Const:
        e->value = uint32_t(int32_t(r.sleb(32)));
        got = ValType::I32;
        break;
      case opc::kI64Const:
        e->value = uint64_t(r.sleb(64));
        got = ValType::I64;
        break;
      case opc::kF32Const:
        e->value = r.fixed32();
        got = ValType::F32;
        break;
      case opc::kF64Const:
        e->value = r.fixed64();
        got = ValType::F64;
        break;
      case opc::kGlobalGet: {
        uint32_t g = r.u32();
        if (r.failed()) return false;
        if (g >= m->globals.n) return r.invalid("unknown global");
        if (g >= m->nglobal_imports) return r.invalid("unknown global: constant expression may only use imported globals");
        if (m->globals[g].mut) return r.invalid("constant expression required: global is mutable");
        e->value = g;
        got = m->globals[g].type;
        break;
      }
      case opc::kRefNull: {
        ValType t = ValType::FuncRef;
        if (!reftype(&t)) return false;
        e->value = uint8_t(t);
        got = t;
        break;
      }
      case opc::kRefFunc: {
        uint32_t f = r.u32();
        if (r.failed()) return false;
        if (f >= m->func_types.n) return r.invalid("unknown function");
        refs[f] = 1;
        e->value = f;
        got = ValType::FuncRef;
        break;
      }
      case opc::kEnd: return r.invalid("type mismatch: empty constant expression");
      default:
        if (opc::info(op).group() == opc::Group::Numeric || op == opc::kLocalGet || op == opc::kLocalSet ||
            op == opc::kLocalTee || op == opc::kGlobalSet || op == opc::kCall || op == opc::kUnreachable || op == opc::kNop ||
            op == opc::kDrop || op == opc::kSelect)
          return r.invalid("constant expression required");
        return r.malformed("illegal opcode in constant expression");
    }
    if (r.failed()) return false;
    uint8_t end = r.u8();
    if (r.failed()) return false;
    if (end != opc::kEnd) {
      opc::Group g = opc::info(end).group();
      if (g == opc::Group::Constant || g == opc::Group::Numeric || end == opc::kGlobalGet || end == opc::kRefNull ||
          end == opc::kRefFunc || end == opc::kDrop)
        return r.invalid("type mismatch: constant expression has extra instructions");
      return r.malformed("illegal opcode: constant expression must end with end");
    }
    if (got != want) return r.invalid("type mismatch in constant expression");
    return true;
  }

  bool type_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      if (r.u8() != 0x60) return r.malformed("malformed function type: expected 0x60");
      FuncType ft;
      uint32_t first = m->type_pool.n;
      ft.nparams = r.u32();
      for (uint32_t k = 0; k < ft.nparams && !r.failed(); k++) {
        ValType t = ValType::FuncRef;
        if (!valtype(&t)) return false;
        if (!m->type_pool.push(a, t)) return oom();
      }
      ft.nresults = r.u32();
      for (uint32_t k = 0; k < ft.nresults && !r.failed(); k++) {
        ValType t = ValType::FuncRef;
        if (!valtype(&t)) return false;
        if (!m->type_pool.push(a, t)) return oom();
      }
      ft.types = reinterpret_cast<const ValType*>(uintptr_t(first));  // offset until the pool stops growing
      if (!m->types.push(a, ft)) return oom();
    }
    if (r.failed()) return false;
    for (uint32_t i = 0; i < m->types.n; i++) m->types[i].types = m->type_pool.p + uintptr_t(m->types[i].types);
    return true;
  }

  bool import_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      Import im;
      if (!name(&im.module_off, &im.module_len) || !name(&im.name_off, &im.name_len)) return false;
      uint8_t kind = r.u8();
      if (r.failed()) return false;
      switch (kind) {
        case 0: {
          uint32_t t = r.u32();
          if (r.failed()) return false;
          if (t >= m->types.n) return r.invalid("unknown type");
          im.index = m->func_types.n;
          if (!m->func_types.push(a, t)) return oom();
          m->nfunc_imports++;
          break;
        }
        case 1: {
          TableDef td;
          if (!tabletype(&td)) return false;
          im.index = m->tables.n;
          if (!m->tables.push(a, td)) return oom();
          m->ntable_imports++;
          break;
        }
        case 2: {
          Limits32 l;
          if (!memtype(&l)) return false;
          im.index = m->memories.n;
          if (!m->memories.push(a, l)) return oom();
          m->nmem_imports++;
          // WebAssembly 2.0 has one memory: two imported ones are as invalid as two defined.
          if (m->memories.n > 1) return r.invalid("multiple memories");
          break;
        }
        case 3: {
          GlobalDef g;
          if (!globaltype(&g.type, &g.mut)) return false;
          g.init = {0, 0};
          im.index = m->globals.n;
          if (!m->globals.push(a, g)) return oom();
          m->nglobal_imports++;
          break;
        }
        default: return r.malformed("malformed import kind");
      }
      im.kind = ExternKind(kind);
      if (!m->imports.push(a, im)) return oom();
    }
    return !r.failed();
  }

  bool function_section() {
    uint32_t n = r.u32();
    nfunc_decls = n;
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      uint32_t t = r.u32();
      if (r.failed()) return false;
      if (t >= m->types.n) return r.invalid("unknown type");
      if (!m->func_types.push(a, t)) return oom();
    }
    return !r.failed();
  }

  bool table_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      TableDef td;
      if (!tabletype(&td)) return false;
      if (!m->tables.push(a, td)) return oom();
    }
    return !r.failed();
  }

  bool memory_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      Limits32 l;
      if (!memtype(&l)) return false;
      if (!m->memories.push(a, l)) return oom();
    }
    if (r.failed()) return false;
    if (m->memories.n > 1) return r.invalid("multiple memories");
    return true;
  }

  bool global_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      GlobalDef g;
      if (!globaltype(&g.type, &g.mut)) return false;
      if (!const_expr(&g.init, g.type)) return false;
      if (!m->globals.push(a, g)) return oom();
    }
    return !r.failed();
  }

  bool export_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      Export e;
      if (!name(&e.name_off, &e.name_len)) return false;
      uint8_t kind = r.u8();
      e.index = r.u32();
      if (r.failed()) return false;
      switch (kind) {
        case 0:
          if (e.index >= m->func_types.n) return r.invalid("unknown function");
          refs[e.index] = 1;
          break;
        case 1:
          if (e.index >= m->tables.n) return r.invalid("unknown table");
          break;
        case 2:
          if (e.index >= m->memories.n) return r.invalid("unknown memory");
          break;
        case 3:
          if (e.index >= m->globals.n) return r.invalid("unknown global");
          break;
        default: return r.malformed("malformed export kind");
      }
      e.kind = ExternKind(kind);
      for (uint32_t k = 0; k < m->exports.n; k++) {
        const Export& o = m->exports[k];
        if (o.name_len == e.name_len && std::memcmp(m->names.p + o.name_off, m->names.p + e.name_off, e.name_len) == 0)
          return r.invalid("duplicate export name");
      }
      if (!m->exports.push(a, e)) return oom();
    }
    return !r.failed();
  }

  bool start_section() {
    uint32_t f = r.u32();
    if (r.failed()) return false;
    if (f >= m->func_types.n) return r.invalid("unknown function");
    const FuncType& ft = m->types[m->func_types[f]];
    if (ft.nparams || ft.nresults) return r.invalid("start function must have type [] -> []");
    m->start = f;
    return true;
  }

  bool elem_section() {
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      uint32_t flags = r.u32();
      if (r.failed()) return false;
      if (flags > 7) return r.malformed("malformed elements segment kind");
      ElemSeg s;
      s.mode = (flags & 1) ? ((flags & 2) ? SegMode::Declarative : SegMode::Passive) : SegMode::Active;
      s.table = 0;
      s.type = ValType::FuncRef;
      s.offset = {0, 0};
      if (!(flags & 1)) {
        if (flags & 2) s.table = r.u32();
        if (r.failed()) return false;
        if (s.table >= m->tables.n) return r.invalid("unknown table");
        if (!const_expr(&s.offset, ValType::I32)) return false;
      }
      bool exprs = flags & 4;
      if (flags & 3) {
        if (exprs) {
          if (!reftype(&s.type)) return false;
        } else {
          uint8_t k = r.u8();
          if (r.failed()) return false;
          if (k != 0) return r.malformed("malformed element kind");
        }
      }
      uint32_t count = r.u32();
      if (r.failed()) return false;
      s.first = m->elem_items.n;
      s.count = count;
      for (uint32_t k = 0; k < count && !r.failed(); k++) {
        ConstExpr e;
        if (exprs) {
          if (!const_expr(&e, s.type)) return false;
        } else {
          uint32_t f = r.u32();
          if (r.failed()) return false;
          if (f >= m->func_types.n) return r.invalid("unknown function");
          refs[f] = 1;
          e = {opc::kRefFunc, f};
        }
        if (!m->elem_items.push(a, e)) return oom();
      }
      if (s.mode == SegMode::Active && m->tables[s.table].elem != s.type)
        return r.invalid("type mismatch: element segment type differs from table");
      if (!m->elems.push(a, s)) return oom();
    }
    return !r.failed();
  }

  bool datacount_section() {
    m->datacount = r.u32();
    m->has_datacount = true;
    return !r.failed();
  }

  bool code_section() {
    uint32_t n = r.u32();
    if (r.failed()) return false;
    if (n != nfunc_decls) return r.malformed("function and code section have inconsistent lengths");
    saw_code = true;
    if (!m->funcs.reserve(a, n)) return oom();
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      uint32_t size = r.u32();
      if (r.failed()) return false;
      if (uint32_t(r.end - r.p) < size) return r.malformed("unexpected end: function body size");
      const uint8_t* body_end = r.p + size;
      const uint8_t* saved_end = r.end;
      r.end = body_end;
      if (!compile_function(m, r, i, refs.p)) return false;
      if (r.p != body_end) return r.malformed("section size mismatch: function body");
      r.end = saved_end;
    }
    if (r.failed()) return false;
    for (uint32_t i = 0; i + 1 < m->call_fixups.n; i += 2) {
      uint32_t at = m->call_fixups[i];
      m->code[at] = m->funcs[m->call_fixups[i + 1]].code - at;
    }
    m->call_fixups.release(a);
    return true;
  }

  bool data_section() {
    uint32_t n = r.u32();
    if (r.failed()) return false;
    if (m->has_datacount && n != m->datacount) return r.malformed("data count and data section have inconsistent lengths");
    for (uint32_t i = 0; i < n && !r.failed(); i++) {
      uint32_t flags = r.u32();
      if (r.failed()) return false;
      DataSeg d;
      d.memory = 0;
      d.offset = {0, 0};
      if (flags > 2) return r.malformed("malformed data segment kind");
      d.mode = flags == 1 ? SegMode::Passive : SegMode::Active;
      if (flags == 2) d.memory = r.u32();
      if (d.mode == SegMode::Active) {
        if (r.failed()) return false;
        if (d.memory >= m->memories.n) return r.invalid("unknown memory");
        if (!const_expr(&d.offset, ValType::I32)) return false;
      }
      uint32_t len = r.u32();
      const uint8_t* bytes = r.bytes(len);
      if (!bytes) return false;
      d.first = m->data_bytes.n;
      d.len = len;
      if (!m->data_bytes.reserve(a, m->data_bytes.n + len)) return oom();
      if (len) std::memcpy(m->data_bytes.p + m->data_bytes.n, bytes, len);
      m->data_bytes.n += len;
      if (!m->datas.push(a, d)) return oom();
    }
    return !r.failed();
  }

  bool section(uint8_t id) {
    static const char* const kNames[] = {"custom", "type",  "import",  "function", "table", "memory",   "global",
                                         "export", "start", "element", "code",     "data",  "datacount"};
    r.section = kNames[id];
    switch (id) {
      case 0: {
        uint32_t off = 0, len = 0;
        if (!name(&off, &len)) return false;
        m->names.n = off;  // the custom section's name is not kept
        r.p = r.end;
        return true;
      }
      case 1: return type_section();
      case 2: return import_section();
      case 3: return function_section();
      case 4: return table_section();
      case 5: return memory_section();
      case 6: return global_section();
      case 7: return export_section();
      case 8: return start_section();
      case 9: return elem_section();
      case 10: return code_section();
      case 11: return data_section();
      case 12: return datacount_section();
    }
    return r.malformed("malformed section id");
  }

  // Ref.func in bodies may name functions referenced elsewhere in the module; those come
  // from elem/export/global sections that precede the code section, so the map is complete.
  bool prepare_refs() {
    if (!refs.reserve(a, m->func_types.n + 1)) return oom();
    refs.n = m->func_types.n;
    std::memset(refs.p, 0, refs.n);
    return true;
  }

  bool run() {
    r.section = "header";
    if (r.end - r.p < 4 || std::memcmp(r.p, "\0asm", 4) != 0) return r.malformed("magic header not detected");
    r.p += 4;
    if (r.end - r.p < 4) return r.malformed("unexpected end: unknown binary version");
    if (r.fixed32() != 1) return r.malformed("unknown binary version");
    // Canonical order; datacount (12) sits between element (9) and code (10).
    static const uint8_t kRank[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 10};
    uint8_t last_rank = 0;
    const uint8_t* file_end = r.end;
    bool refs_ready = false;
    while (r.p < file_end && !r.failed()) {
      r.section = "module";
      uint8_t id = r.u8();
      uint32_t size = r.u32();
      if (r.failed()) return false;
      if (id > 12) return r.malformed("malformed section id");
      if (uint32_t(file_end - r.p) < size) return r.malformed("unexpected end: section size out of bounds");
      if (id != 0) {
        if (kRank[id] <= last_rank)
          return r.malformed(
              "unexpected content after last section / junk after last section (section out of order or duplicated)");
        last_rank = kRank[id];
      }
      if (!refs_ready && kRank[id] > kRank[3]) {
        // every function is declared by now; later sections mark ref.func targets
        if (!prepare_refs()) return false;
        refs_ready = true;
      }
      const uint8_t* sec_end = r.p + size;
      r.end = sec_end;
      if (!section(id)) return false;
      if (r.p != sec_end) return r.malformed("section size mismatch");
      r.end = file_end;
    }
    if (r.failed()) return false;
    r.section = "module";
    if (!saw_code && nfunc_decls) return r.malformed("function and code section have inconsistent lengths");
    if (m->has_datacount && m->datas.n != m->datacount)
      return r.malformed("data count and data section have inconsistent lengths");
    return compute_stack_bound(m) || oom();
  }
};

}  // namespace

const Allocator& default_allocator() { return kMalloc; }

bool same_type(const FuncType& a, const FuncType& b) {
  return a.nparams == b.nparams && a.nresults == b.nresults && std::memcmp(a.types, b.types, a.nparams + a.nresults) == 0;
}

Module* module_load(const uint8_t* bytes, size_t len, const Allocator& a, Error* err) {
  err->kind = Error::None;
  err->message[0] = 0;
  void* mem = a.alloc(a.ctx, sizeof(Module));
  if (!mem) {
    err->kind = Error::OutOfMemory;
    std::snprintf(err->message, sizeof err->message, "out of memory");
    return nullptr;
  }
  Module* m = new (mem) Module();
  m->alloc = a;
  Loader l{m, Reader{bytes, bytes, bytes + len, err, "header"}, a, 0, false, {}};
  // Types refer into type_pool by offset while it grows; fixed up to pointers before use.
  bool ok = l.run();
  l.refs.release(a);
  if (!ok) {
    module_free(m);
    return nullptr;
  }
  return m;
}

void module_free(Module* m) {
  if (!m) return;
  Allocator a = m->alloc;
  m->types.release(a);
  m->type_pool.release(a);
  m->names.release(a);
  m->imports.release(a);
  m->func_types.release(a);
  m->tables.release(a);
  m->memories.release(a);
  m->globals.release(a);
  m->exports.release(a);
  m->elems.release(a);
  m->elem_items.release(a);
  m->datas.release(a);
  m->data_bytes.release(a);
  m->funcs.release(a);
  m->code.release(a);
  m->call_fixups.release(a);
  m->call_sites.release(a);
  m->~Module();
  a.free(a.ctx, m);
}

size_t module_code_bytes(const Module* m) {
  return sizeof(Module) + m->code.n * 4 + m->funcs.n * sizeof(FuncCode) + m->types.n * sizeof(FuncType) + m->type_pool.n +
         m->names.n + m->data_bytes.n + m->elem_items.n * sizeof(ConstExpr);
}

}  // namespace wasm
}  // namespace k32
