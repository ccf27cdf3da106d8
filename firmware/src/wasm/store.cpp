// Stores and their objects: allocation accounting, memories, tables, globals, host
// functions, name definitions for linking, traps, and the call entry point.
#include <cstdio>
#include <new>

#include "internal.h"

namespace k32 {
namespace wasm {

// Every store allocation carries this header so the store can free everything at once
// and report exactly what a pod holds.
struct Node {
  Node* prev;
  Node* next;
  size_t size;
  size_t bulk;  // 1: from Allocator::alloc_bulk (also keeps the payload 16-byte aligned)
};

namespace {

void* counted_alloc(void* ctx, size_t n) { return static_cast<Store*>(ctx)->allocate(n); }
void counted_free(void* ctx, void* p) { static_cast<Store*>(ctx)->release(p); }

ValType letter_type(char c, bool* ok) {
  switch (c) {
    case 'i': return ValType::I32;
    case 'I': return ValType::I64;
    case 'f': return ValType::F32;
    case 'F': return ValType::F64;
    case 'r': return ValType::FuncRef;
    case 'e': return ValType::ExternRef;
  }
  *ok = false;
  return ValType::I32;
}
char type_letter(ValType t) {
  switch (t) {
    case ValType::I32: return 'i';
    case ValType::I64: return 'I';
    case ValType::F32: return 'f';
    case ValType::F64: return 'F';
    case ValType::FuncRef: return 'r';
    case ValType::ExternRef: return 'e';
  }
  return '?';
}

}  // namespace

void* Store::allocate(size_t bytes, bool bulk) {
  size_t total = sizeof(Node) + bytes;
  if (total < bytes) return nullptr;
  auto* fn = bulk && user_alloc.alloc_bulk ? user_alloc.alloc_bulk : user_alloc.alloc;
  Node* n = static_cast<Node*>(fn(user_alloc.ctx, total));
  if (!n) return nullptr;
  std::memset(n, 0, total);
  n->size = total;
  n->bulk = bulk ? 1 : 0;
  if (bulk) bulk_bytes += total;
  n->next = objects;
  if (objects) objects->prev = n;
  objects = n;
  in_use += total;
  return n + 1;
}

void Store::release(void* p) {
  if (!p) return;
  Node* n = static_cast<Node*>(p) - 1;
  if (n->prev) n->prev->next = n->next;
  else objects = n->next;
  if (n->next) n->next->prev = n->prev;
  in_use -= n->size;
  if (n->bulk) bulk_bytes -= n->size;
  user_alloc.free(user_alloc.ctx, n);
}

Trap trap_ok() { return Trap{TrapCode::None, 0, ""}; }
Trap trap_make(TrapCode code, const char* message) { return Trap{code, 0, message ? message : trap_text(code)}; }

const char* trap_text(TrapCode code) {
  switch (code) {
    case TrapCode::None: return "";
    case TrapCode::Unreachable: return "unreachable";
    case TrapCode::MemoryOutOfBounds: return "out of bounds memory access";
    case TrapCode::TableOutOfBounds: return "out of bounds table access";
    case TrapCode::IndirectCallTypeMismatch: return "indirect call type mismatch";
    case TrapCode::UninitializedElement: return "uninitialized element";
    case TrapCode::IntegerOverflow: return "integer overflow";
    case TrapCode::IntegerDivideByZero: return "integer divide by zero";
    case TrapCode::InvalidConversion: return "invalid conversion to integer";
    case TrapCode::CallStackExhausted: return "call stack exhausted";
    case TrapCode::Interrupted: return "interrupted";
    case TrapCode::OutOfFuel: return "out of fuel";
    case TrapCode::OutOfMemory: return "out of memory";
    case TrapCode::HostError: return "host error";
    case TrapCode::Exit: return "exit";
  }
  return "trap";
}

Store* store_new(const Allocator& a, const Limits& limits) {
  void* mem = a.alloc(a.ctx, sizeof(Store));
  if (!mem) return nullptr;
  Store* s = new (mem) Store();
  s->user_alloc = a;
  s->alloc = Allocator{counted_alloc, counted_free, s, nullptr};
  s->limits = limits;
  if (s->limits.call_depth < 2) s->limits.call_depth = 2;
  s->stack = static_cast<uint64_t*>(s->allocate(size_t(s->limits.value_stack_slots) * 8, true));
  s->frames = static_cast<Frame*>(s->allocate(size_t(s->limits.call_depth) * sizeof(Frame)));
  if (!s->stack || !s->frames) {
    store_free(s);
    return nullptr;
  }
  return s;
}

void store_free(Store* s) {
  if (!s) return;
  Allocator a = s->user_alloc;
  while (s->objects) s->release(s->objects + 1);
  s->~Store();
  a.free(a.ctx, s);
}

size_t store_bytes_in_use(const Store* s) { return s->in_use + sizeof(Store); }
size_t store_linear_bytes(const Store* s) { return s->linear_bytes; }
size_t store_bulk_bytes(const Store* s) { return s->bulk_bytes; }
void store_interrupt(Store* s) { s->interrupt.store(true, std::memory_order_relaxed); }
void store_set_fuel(Store* s, int64_t fuel) { s->fuel = fuel < 0 ? -1 : fuel; }
int64_t store_fuel(const Store* s) { return s->fuel; }

// ---- objects ----
// A host function with its type behind it, in one block from `alloc` (zeroed); the block
// goes back through `release` when the signature does not read.
template <typename Alloc, typename Release>
Func* make_host_func(const char* sig, HostFn fn, void* user, Alloc alloc, Release release) {
  const char* colon = std::strchr(sig, ':');
  if (!colon || !fn) return nullptr;
  uint32_t np = uint32_t(colon - sig), nr = uint32_t(std::strlen(colon + 1));
  Func* f = static_cast<Func*>(alloc(sizeof(Func) + sizeof(FuncType) + np + nr));
  if (!f) return nullptr;
  FuncType* ft = reinterpret_cast<FuncType*>(f + 1);
  ValType* types = reinterpret_cast<ValType*>(ft + 1);
  bool ok = true;
  for (uint32_t i = 0; i < np; i++) types[i] = letter_type(sig[i], &ok);
  for (uint32_t i = 0; i < nr; i++) types[np + i] = letter_type(colon[1 + i], &ok);
  if (!ok) {
    release(f);
    return nullptr;
  }
  ft->nparams = np;
  ft->nresults = nr;
  ft->types = types;
  f->type = ft;
  f->host = fn;
  f->user = user;
  return f;
}

Func* host_func_new(Store* s, const char* sig, HostFn fn, void* user) {
  return make_host_func(
      sig, fn, user, [s](size_t n) { return s->allocate(n); }, [s](void* p) { s->release(p); });
}

Func* host_func_make(const Allocator& a, const char* sig, HostFn fn, void* user) {
  return make_host_func(
      sig, fn, user,
      [&a](size_t n) {
        void* p = a.alloc(a.ctx, n);
        if (p) std::memset(p, 0, n);
        return p;
      },
      [&a](void* p) { a.free(a.ctx, p); });
}

void host_func_free(const Allocator& a, Func* f) {
  if (f) a.free(a.ctx, f);
}

void store_set_host_user(Store* s, void* user) { s->host_user = user; }
void* store_host_user(const Store* s) { return s->host_user; }
void store_set_resolver(Store* s, ImportResolver resolve, void* ctx) {
  s->resolver = resolve;
  s->resolver_ctx = ctx;
}

Global* global_new(Store* s, ValType t, bool mut, Value v) {
  Global* g = static_cast<Global*>(s->allocate(sizeof(Global)));
  if (!g) return nullptr;
  g->type = t;
  g->mut = mut;
  g->bits = v.bits;
  return g;
}

uint32_t memory_pages(const Memory* m) { return m->pages; }
Value global_get(const Global* g) { return Value{g->bits}; }
ValType global_type(const Global* g) { return g->type; }

Table* table_new(Store* s, ValType elem, uint32_t min, uint32_t max) {
  uint32_t cap = s->limits.max_table_elems;
  if (min > cap) return nullptr;
  Table* t = static_cast<Table*>(s->allocate(sizeof(Table)));
  if (!t) return nullptr;
  t->elem = elem;
  t->size = min;
  t->max = max;
  if (min) {
    t->elems = static_cast<uint64_t*>(s->allocate(size_t(min) * 8));
    if (!t->elems) {
      s->release(t);
      return nullptr;
    }
  }
  return t;
}

bool table_grow(Store* s, Table* t, uint32_t delta, uint64_t init, uint32_t* old_size) {
  uint64_t want = uint64_t(t->size) + delta;
  uint64_t limit = t->max < s->limits.max_table_elems ? t->max : s->limits.max_table_elems;
  if (want > limit) return false;
  *old_size = t->size;
  if (delta == 0) return true;
  uint64_t* e = static_cast<uint64_t*>(s->allocate(size_t(want) * 8));
  if (!e) return false;
  if (t->size) std::memcpy(e, t->elems, size_t(t->size) * 8);
  for (uint64_t i = t->size; i < want; i++) e[i] = init;
  s->release(t->elems);
  t->elems = e;
  t->size = uint32_t(want);
  return true;
}

Memory* memory_new(Store* s, uint32_t min_pages, uint32_t max_pages, uint64_t trim_bytes) {
  if (min_pages > s->limits.max_memory_pages) return nullptr;
  Memory* m = static_cast<Memory*>(s->allocate(sizeof(Memory)));
  if (!m) return nullptr;
  m->pages = min_pages;
  m->max_pages = max_pages;
  m->bytes = uint64_t(min_pages) * kPageSize;
  if (trim_bytes && trim_bytes < m->bytes) m->bytes = trim_bytes;
  if (min_pages) {
    m->data = static_cast<uint8_t*>(s->allocate(size_t(m->bytes), true));
    if (!m->data) {
      s->release(m);
      return nullptr;
    }
    s->linear_bytes += size_t(m->bytes);
  }
  return m;
}

bool memory_grow(Store* s, Memory* m, uint32_t delta, uint32_t* old_pages) {
  uint64_t want = uint64_t(m->pages) + delta;
  uint64_t limit = m->max_pages < s->limits.max_memory_pages ? m->max_pages : s->limits.max_memory_pages;
  if (limit > 65536) limit = 65536;
  if (want > limit) return false;
  if (want * kPageSize > size_t(-1) / 2) return false;  // 32-bit hosts cannot map 2GiB+
  *old_pages = m->pages;
  if (delta == 0) return true;
  uint8_t* d = static_cast<uint8_t*>(s->allocate(size_t(want) * kPageSize, true));
  if (!d) return false;
  if (m->bytes) std::memcpy(d, m->data, size_t(m->bytes));
  s->release(m->data);
  s->linear_bytes += size_t(want) * kPageSize - size_t(m->bytes);
  m->data = d;
  m->pages = uint32_t(want);
  m->bytes = uint64_t(want) * kPageSize;
  return true;
}

// ---- definitions ----
static char* dup_string(Store* s, const char* str, size_t n) {
  char* c = static_cast<char*>(s->allocate(n + 1));
  if (c) std::memcpy(c, str, n);
  return c;
}

bool store_define(Store* s, const char* module, const char* name, Extern e) {
  if (!e.ptr) return false;
  for (uint32_t i = 0; i < s->defs.n; i++) {
    Definition& d = s->defs[i];
    if (std::strcmp(d.module, module) == 0 && std::strcmp(d.name, name) == 0) {
      d.ext = e;
      return true;
    }
  }
  Definition d{dup_string(s, module, std::strlen(module)), dup_string(s, name, std::strlen(name)), e};
  if (!d.module || !d.name) return false;
  return s->defs.push(s->alloc, d);
}

void store_define_only_for(Store* s, const Module* m) { s->defines_for = m; }

static bool module_imports(const Module* m, const char* module, const char* name) {
  size_t ml = std::strlen(module), nl = std::strlen(name);
  for (uint32_t i = 0; i < m->imports.n; i++) {
    const Import& im = m->imports[i];
    if (im.module_len == ml && im.name_len == nl && std::memcmp(m->names.p + im.module_off, module, ml) == 0 &&
        std::memcmp(m->names.p + im.name_off, name, nl) == 0)
      return true;
  }
  return false;
}

bool store_define_host(Store* s, const char* module, const char* name, const char* sig, HostFn fn, void* user) {
  if (s->defines_for && !module_imports(s->defines_for, module, name)) return true;
  Func* f = host_func_new(s, sig, fn, user);
  return f && store_define(s, module, name, Extern{ExternKind::Func, f});
}

bool store_register_instance(Store* s, const char* as, Instance* inst) {
  const char* name;
  Extern e;
  for (uint32_t i = 0; instance_export_at(inst, i, &name, &e); i++)
    if (!store_define(s, as, name, e)) return false;
  return true;
}

// ---- functions ----
bool func_signature(const Func* f, char* buf, size_t cap) {
  size_t need = f->type->nparams + f->type->nresults + 2;
  if (cap < need) return false;
  size_t k = 0;
  for (uint32_t i = 0; i < f->type->nparams; i++) buf[k++] = type_letter(f->type->params()[i]);
  buf[k++] = ':';
  for (uint32_t i = 0; i < f->type->nresults; i++) buf[k++] = type_letter(f->type->results()[i]);
  buf[k] = 0;
  return true;
}
uint32_t func_param_count(const Func* f) { return f->type->nparams; }
uint32_t func_result_count(const Func* f) { return f->type->nresults; }
ValType func_param_type(const Func* f, uint32_t i) { return f->type->params()[i]; }
ValType func_result_type(const Func* f, uint32_t i) { return f->type->results()[i]; }

Trap call(Store* s, Func* f, const Value* args, uint32_t nargs, Value* results, uint32_t nresults) {
  if (!f || nargs != f->type->nparams || nresults != f->type->nresults)
    return trap_make(TrapCode::HostError, "call: argument or result count does not match the signature");
  if (s->depth_used == 0) s->interrupt.store(false, std::memory_order_relaxed);
  return execute(s, f, args, results);
}

// ---- caller view of linear memory ----
uint8_t* Caller::memory(uint32_t* size) const {
  Memory* m = instance ? instance->memory : nullptr;
  *size = m ? uint32_t(m->bytes) : 0;
  return m ? m->data : nullptr;
}
bool Caller::read(uint32_t addr, void* dst, uint32_t len) const {
  uint32_t size;
  uint8_t* mem = memory(&size);
  if (!mem || uint64_t(addr) + len > size) return false;
  if (len) std::memcpy(dst, mem + addr, len);
  return true;
}
bool Caller::write(uint32_t addr, const void* src, uint32_t len) const {
  uint32_t size;
  uint8_t* mem = memory(&size);
  if (!mem || uint64_t(addr) + len > size) return false;
  if (len) std::memcpy(mem + addr, src, len);
  return true;
}

}  // namespace wasm
}  // namespace k32
