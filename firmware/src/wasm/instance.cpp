// Instantiation: import resolution with the WebAssembly spec's subtyping rules, allocation of the
// module's own functions/tables/memory/globals, active segments, and the start function.
#include <cstdio>

#include "internal.h"
#include "opcodes.h"

namespace k32 {
namespace wasm {

namespace {

const char* kKindNames[] = {"function", "table", "memory", "global"};

bool link_error(Error* err, Error::Kind kind, const Module* m, const Import& im, const char* what) {
  err->kind = kind;
  std::snprintf(err->message, sizeof err->message, "import %s.%s (%s): %s", m->names.p + im.module_off, m->names.p + im.name_off,
                kKindNames[uint8_t(im.kind)], what);
  return false;
}

bool limits_match(uint32_t size, uint32_t max, const Limits32& want) {
  if (size < want.min) return false;
  if (want.max == kNoMax) return true;
  return max != kNoMax && max <= want.max;
}

const Definition* find_def(const Store* s, const char* module, const char* name) {
  for (uint32_t i = 0; i < s->defs.n; i++) {
    const Definition& d = s->defs[i];
    if (std::strcmp(d.module, module) == 0 && std::strcmp(d.name, name) == 0) return &d;
  }
  return nullptr;
}

bool resolve_imports(Store* s, const Module* m, Instance* inst, Error* err) {
  for (uint32_t i = 0; i < m->imports.n; i++) {
    const Import& im = m->imports[i];
    const Definition* d = find_def(s, m->names.p + im.module_off, m->names.p + im.name_off);
    Extern ext{};
    if (d) ext = d->ext;
    else if (!s->resolver || !s->resolver(s->resolver_ctx, m->names.p + im.module_off, m->names.p + im.name_off, &ext) ||
             !ext.ptr)
      return link_error(err, Error::Unlinkable, m, im, "unknown import");
    if (ext.kind != im.kind) return link_error(err, Error::Unlinkable, m, im, "incompatible import type");
    switch (im.kind) {
      case ExternKind::Func: {
        Func* f = static_cast<Func*>(ext.ptr);
        if (!same_type(*f->type, m->types[m->func_types[im.index]]))
          return link_error(err, Error::Unlinkable, m, im, "incompatible import type: signature differs");
        inst->funcs[im.index] = f;
        break;
      }
      case ExternKind::Table: {
        Table* t = static_cast<Table*>(ext.ptr);
        const TableDef& want = m->tables[im.index];
        if (t->elem != want.elem || !limits_match(t->size, t->max, want.lim))
          return link_error(err, Error::Unlinkable, m, im, "incompatible import type: table limits or element type");
        inst->tables[im.index] = t;
        break;
      }
      case ExternKind::Memory: {
        Memory* mem = static_cast<Memory*>(ext.ptr);
        if (!limits_match(mem->pages, mem->max_pages, m->memories[im.index]))
          return link_error(err, Error::Unlinkable, m, im, "incompatible import type: memory limits");
        inst->memory = mem;
        break;
      }
      case ExternKind::Global: {
        Global* g = static_cast<Global*>(ext.ptr);
        const GlobalDef& want = m->globals[im.index];
        if (g->type != want.type || g->mut != want.mut)
          return link_error(err, Error::Unlinkable, m, im, "incompatible import type: global type or mutability");
        inst->globals[im.index] = g;
        break;
      }
    }
  }
  return true;
}

bool fail_alloc(Error* err, const char* what) {
  err->kind = Error::OutOfMemory;
  std::snprintf(err->message, sizeof err->message, "instantiate: cannot allocate %s (limits or memory)", what);
  return false;
}

// The bytes a module's defined memory may be trimmed to (Limits::trim_to_heap_base), or 0
// to keep whole pages: only a module that never reads its memory's size, exports an
// immutable i32 __heap_base, and whose active data segments all end below it.
uint64_t trimmed_memory_bytes(const Limits& limits, const Module* m) {
  if (!limits.trim_to_heap_base || m->sizes_memory || m->memories.n <= m->nmem_imports) return 0;
  uint64_t heap_base = 0;
  for (uint32_t i = 0; i < m->exports.n; i++) {
    const Export& e = m->exports[i];
    if (e.kind != ExternKind::Global || e.name_len != 11 || std::memcmp(m->names.p + e.name_off, "__heap_base", 11) != 0)
      continue;
    if (e.index < m->nglobal_imports) return 0;
    const GlobalDef& g = m->globals[e.index];
    if (g.mut || g.type != ValType::I32 || g.init.op != 0x41) return 0;
    heap_base = uint32_t(g.init.value);
  }
  heap_base = (heap_base + 15) & ~uint64_t(15);
  if (heap_base == 0 || heap_base >= uint64_t(m->memories[0].min) * kPageSize) return 0;
  for (uint32_t i = 0; i < m->datas.n; i++) {
    const DataSeg& d = m->datas[i];
    if (d.mode != SegMode::Active) continue;
    if (d.offset.op != 0x41 || uint64_t(uint32_t(d.offset.value)) + d.len > heap_base) return 0;
  }
  return heap_base;
}

bool allocate_own(Store* s, const Module* m, Instance* inst, Error* err) {
  uint32_t ndef = m->func_types.n - m->nfunc_imports;
  Func* own = ndef ? static_cast<Func*>(s->allocate(sizeof(Func) * ndef)) : nullptr;
  if (ndef && !own) return fail_alloc(err, "functions");
  for (uint32_t i = 0; i < ndef; i++) {
    own[i].type = &m->types[m->funcs[i].type];
    own[i].inst = inst;
    own[i].entry = m->code.p + m->funcs[i].code;
    own[i].nparams = m->types[m->funcs[i].type].nparams;
    own[i].nlocals = m->funcs[i].nlocals;
    own[i].frame_slots = m->funcs[i].nlocals + m->funcs[i].max_height;
    inst->funcs[m->nfunc_imports + i] = &own[i];
  }
  for (uint32_t i = m->ntable_imports; i < m->tables.n; i++) {
    const TableDef& td = m->tables[i];
    inst->tables[i] = table_new(s, td.elem, td.lim.min, td.lim.max);
    if (!inst->tables[i]) return fail_alloc(err, "a table");
  }
  if (m->memories.n > m->nmem_imports) {
    const Limits32& l = m->memories[0];
    inst->memory = memory_new(s, l.min, l.max, trimmed_memory_bytes(s->limits, m));
    if (!inst->memory) return fail_alloc(err, "linear memory");
  }
  for (uint32_t i = m->nglobal_imports; i < m->globals.n; i++) {
    const GlobalDef& g = m->globals[i];
    inst->globals[i] = global_new(s, g.type, g.mut, Value{const_value(inst, g.init)});
    if (!inst->globals[i]) return fail_alloc(err, "a global");
  }
  for (uint32_t i = 0; i < m->elems.n; i++) {
    const ElemSeg& e = m->elems[i];
    uint64_t* refs = static_cast<uint64_t*>(s->allocate(size_t(e.count) * 8 + 8));
    if (!refs) return fail_alloc(err, "an element segment");
    for (uint32_t k = 0; k < e.count; k++) refs[k] = const_value(inst, m->elem_items[e.first + k]);
    inst->elem_refs[i] = e.mode == SegMode::Declarative ? nullptr : refs;
  }
  return true;
}

// Active segments run in order, each as table.init / memory.init then a drop (WebAssembly 2.0);
// a trap leaves the effects of earlier segments in place.
Trap run_segments(const Module* m, Instance* inst) {
  for (uint32_t i = 0; i < m->elems.n; i++) {
    const ElemSeg& e = m->elems[i];
    if (e.mode != SegMode::Active) continue;
    Table* t = inst->tables[e.table];
    uint32_t off = uint32_t(const_value(inst, e.offset));
    if (uint64_t(off) + e.count > t->size) return trap_make(TrapCode::TableOutOfBounds);
    for (uint32_t k = 0; k < e.count; k++) t->elems[off + k] = inst->elem_refs[i][k];
    inst->elem_refs[i] = nullptr;
  }
  for (uint32_t i = 0; i < m->datas.n; i++) {
    const DataSeg& d = m->datas[i];
    if (d.mode != SegMode::Active) continue;
    uint32_t off = uint32_t(const_value(inst, d.offset));
    uint64_t size = inst->memory ? inst->memory->bytes : 0;
    if (uint64_t(off) + d.len > size) return trap_make(TrapCode::MemoryOutOfBounds);
    if (d.len) std::memcpy(inst->memory->data + off, m->data_bytes.p + d.first, d.len);
    inst->data_dropped[i] = 1;
  }
  return trap_ok();
}

}  // namespace

uint64_t module_memory_reach(const Module* m, const Limits& limits) {
  if (m->nmem_imports) return UINT64_MAX;
  if (m->memories.n == 0) return 0;
  if (uint64_t trimmed = trimmed_memory_bytes(limits, m)) return trimmed;
  const Limits32& l = m->memories[0];
  // Without memory.grow the memory keeps its initial pages.
  uint32_t most = m->sizes_memory ? l.max : l.min;
  if (most == kNoMax) return UINT64_MAX;
  uint64_t pages = most < limits.max_memory_pages ? most : limits.max_memory_pages;
  return pages * kPageSize;
}

uint64_t const_value(const Instance* inst, const ConstExpr& e) {
  switch (e.op) {
    case opc::kGlobalGet: return inst->globals[e.value]->bits;
    case opc::kRefNull: return 0;
    case opc::kRefFunc: return uint64_t(uintptr_t(inst->funcs[e.value]));
    default: return e.value;
  }
}

Instance* instantiate(Store* s, const Module* m, Error* err, Trap* trap) {
  err->kind = Error::None;
  err->message[0] = 0;
  *trap = trap_ok();
  size_t bytes = sizeof(Instance) + sizeof(Func*) * m->func_types.n + sizeof(Table*) * m->tables.n +
                 sizeof(Global*) * m->globals.n + sizeof(uint64_t*) * m->elems.n + m->datas.n;
  Instance* inst = static_cast<Instance*>(s->allocate(bytes));
  if (!inst) {
    fail_alloc(err, "the instance");
    return nullptr;
  }
  inst->store = s;
  inst->module = m;
  inst->funcs = reinterpret_cast<Func**>(inst + 1);
  inst->tables = reinterpret_cast<Table**>(inst->funcs + m->func_types.n);
  inst->globals = reinterpret_cast<Global**>(inst->tables + m->tables.n);
  inst->elem_refs = reinterpret_cast<uint64_t**>(inst->globals + m->globals.n);
  inst->data_dropped = reinterpret_cast<uint8_t*>(inst->elem_refs + m->elems.n);
  inst->nexports = m->exports.n;
  if (!resolve_imports(s, m, inst, err) || !allocate_own(s, m, inst, err)) return nullptr;
  *trap = run_segments(m, inst);
  if (!trap->ok()) return nullptr;
  if (m->start >= 0) {
    *trap = call(s, inst->funcs[m->start], nullptr, 0, nullptr, 0);
    if (!trap->ok()) return nullptr;
  }
  return inst;
}

bool module_import_at(const Module* m, uint32_t i, const char** module, const char** name, ExternKind* kind) {
  if (i >= m->imports.n) return false;
  const Import& im = m->imports[i];
  *module = m->names.p + im.module_off;
  *name = m->names.p + im.name_off;
  *kind = im.kind;
  return true;
}

bool instance_export_at(const Instance* inst, uint32_t i, const char** name, Extern* out) {
  const Module* m = inst->module;
  if (i >= m->exports.n) return false;
  const Export& e = m->exports[i];
  *name = m->names.p + e.name_off;
  out->kind = e.kind;
  switch (e.kind) {
    case ExternKind::Func: out->ptr = inst->funcs[e.index]; break;
    case ExternKind::Table: out->ptr = inst->tables[e.index]; break;
    case ExternKind::Memory: out->ptr = inst->memory; break;
    case ExternKind::Global: out->ptr = inst->globals[e.index]; break;
  }
  return true;
}

bool instance_export(const Instance* inst, const char* name, Extern* out) {
  return instance_export(inst, name, std::strlen(name), out);
}

bool instance_export(const Instance* inst, const char* name, size_t len, Extern* out) {
  const Module* m = inst->module;
  const char* n;
  for (uint32_t i = 0; instance_export_at(inst, i, &n, out); i++)
    if (m->exports[i].name_len == len && std::memcmp(n, name, len) == 0) return true;
  return false;
}

}  // namespace wasm
}  // namespace k32
