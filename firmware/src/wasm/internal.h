// Internal data structures of the interpreter, shared by loader, linker and executor.
#pragma once
#include <atomic>
#include <cstring>

#include "wasm.h"

// The port's placement of the hottest code (port.h); the library also builds on its own
// (the fuzzer, other embedders), where it is a no-op.
#if __has_include("port.h")
#include "port.h"
#endif
#ifndef K32_FAST_CODE
#define K32_FAST_CODE
#endif

namespace k32 {
namespace wasm {

// Growable array of trivially-copyable T with an explicit allocator: every growth can
// fail and reports it instead of aborting (no exceptions on the boards).
template <class T>
struct Vec {
  T* p = nullptr;
  uint32_t n = 0;
  uint32_t cap = 0;

  bool reserve(const Allocator& a, uint32_t want) {
    if (want <= cap) return true;
    uint64_t nc = cap ? uint64_t(cap) * 2 : 8;
    if (nc < want) nc = want;
    if (nc * sizeof(T) > 0x7FFFFFFFu) return false;
    T* q = static_cast<T*>(a.alloc(a.ctx, size_t(nc * sizeof(T))));
    if (!q) return false;
    if (n) std::memcpy(static_cast<void*>(q), p, n * sizeof(T));
    if (p) a.free(a.ctx, p);
    p = q;
    cap = uint32_t(nc);
    return true;
  }
  bool push(const Allocator& a, const T& v) {
    if (n == cap && !reserve(a, n + 1)) return false;
    p[n++] = v;
    return true;
  }
  void release(const Allocator& a) {
    if (p) a.free(a.ctx, p);
    p = nullptr;
    n = cap = 0;
  }
  T& operator[](uint32_t i) { return p[i]; }
  const T& operator[](uint32_t i) const { return p[i]; }
};

struct FuncType {
  uint32_t nparams;
  uint32_t nresults;
  const ValType* types;  // params then results
  const ValType* params() const { return types; }
  const ValType* results() const { return types + nparams; }
};
bool same_type(const FuncType& a, const FuncType& b);

constexpr uint32_t kNoMax = 0xFFFFFFFFu;
constexpr uint32_t kCallSiteIndirect = 0x80000000u;  // Module::call_sites: a call_indirect of a type
constexpr uint32_t kCallSiteRef = 0x40000000u;       // … not a call: a ref.func of a function

struct Limits32 {
  uint32_t min;
  uint32_t max;  // kNoMax when absent
};

// A constant expression of WebAssembly 2.0 is exactly one instruction.
struct ConstExpr {
  uint8_t op;      // opcodes.h: a constant (i32.const .. f64.const), global.get, ref.null or ref.func
  uint64_t value;  // bits, or the global / function index
};

struct Import {
  uint32_t module_off, module_len, name_off, name_len;  // into Module::names
  ExternKind kind;
  uint32_t index;  // index in its space (func/table/memory/global)
};

struct Export {
  uint32_t name_off, name_len;
  ExternKind kind;
  uint32_t index;
};

struct TableDef {
  ValType elem;
  Limits32 lim;
};

struct GlobalDef {
  ValType type;
  bool mut;
  ConstExpr init;
};

enum class SegMode : uint8_t { Active, Passive, Declarative };

struct ElemSeg {
  SegMode mode;
  ValType type;
  uint32_t table;
  ConstExpr offset;
  uint32_t first;  // index into Module::elem_items
  uint32_t count;
};

struct DataSeg {
  SegMode mode;
  uint32_t memory;
  ConstExpr offset;
  uint32_t first;  // into Module::data_bytes
  uint32_t len;
};

// A compiled function body: code words start at `code`, locals are slots 0..nlocals. The
// kFuncHeaderWords words before `code` repeat the frame's shape for direct calls, which reach
// the body by a relative offset and read it there (indices below).
enum FuncHeader : uint32_t { kHeadParams, kHeadLocals, kHeadSlots /* nlocals + max_height */, kFuncHeaderWords };
struct FuncCode {
  uint32_t code;        // offset into Module::code
  uint32_t nlocals;     // params + declared locals
  uint32_t max_height;  // operand slots needed above the locals
  uint32_t type;        // type index
};

class Module {
 public:
  Allocator alloc;
  Vec<FuncType> types;
  Vec<ValType> type_pool;
  Vec<char> names;
  Vec<Import> imports;
  Vec<uint32_t> func_types;  // type index of every function (imports first)
  uint32_t nfunc_imports = 0, ntable_imports = 0, nmem_imports = 0, nglobal_imports = 0;
  Vec<TableDef> tables;
  Vec<Limits32> memories;
  Vec<GlobalDef> globals;
  Vec<Export> exports;
  int64_t start = -1;
  bool has_datacount = false;
  uint32_t datacount = 0;
  Vec<ElemSeg> elems;
  Vec<ConstExpr> elem_items;
  Vec<DataSeg> datas;
  Vec<uint8_t> data_bytes;
  Vec<FuncCode> funcs;  // defined functions only
  Vec<uint32_t> code;
  // While the code section loads: (code word, defined function) of each direct call, whose
  // word becomes the offset to that function's body once every body is compiled.
  Vec<uint32_t> call_fixups;
  // While the code section loads: (defined caller, callee, slot of the first argument) of every
  // call; the callee is a function index, or kCallSiteIndirect | type index (or, for a ref.func
  // in a body, kCallSiteRef | function index: not a call, a function a table may hold). Turned into
  // `stack_bound` (stack_bound.cpp) once every body is compiled, then released.
  Vec<uint32_t> call_sites;
  StackBound stack_bound{};
  bool sizes_memory = false;  // the code has memory.size or memory.grow (no trimming then)
};

// ---- runtime objects, all owned by a Store ----
struct Func {
  const FuncType* type;
  Instance* inst;         // null for host functions
  const uint32_t* entry;  // wasm functions: first code word
  uint32_t nparams;
  uint32_t nlocals;      // params + declared locals
  uint32_t frame_slots;  // nlocals + maximum operand height
  HostFn host;
  void* user;
};

struct Table {
  ValType elem;
  uint32_t size;
  uint32_t max;
  uint64_t* elems;
};

struct Memory {
  uint8_t* data;
  uint32_t pages;
  uint32_t max_pages;
  uint64_t bytes;  // accessible bytes: pages x 64 KiB, or fewer when trimmed (Limits::trim_to_heap_base)
};

struct Global {
  ValType type;
  bool mut;
  uint64_t bits;
};

struct Instance {
  Store* store;
  const Module* module;
  Func** funcs;
  Table** tables;
  Memory* memory;  // at most one in 2.0
  Global** globals;
  uint64_t** elem_refs;  // evaluated element segments; null once dropped
  uint8_t* data_dropped;
  uint32_t nexports;
};

struct Definition {
  char* module;
  char* name;
  Extern ext;
};

struct Frame {
  const uint32_t* pc;
  uint64_t* fp;
  Instance* inst;
};

class Store {
 public:
  Allocator user_alloc;  // the embedder's allocator
  Allocator alloc;       // counting wrapper over user_alloc
  Limits limits;
  size_t in_use = 0;
  size_t linear_bytes = 0;         // of in_use: linear memories' data
  size_t bulk_bytes = 0;           // of in_use: blocks from alloc_bulk (linear memories, value stack)
  struct Node* objects = nullptr;  // every allocation, freed with the store
  Vec<Definition> defs;
  const Module* defines_for = nullptr;  // store_define_only_for: host functions other modules would import are skipped
  uint64_t* stack = nullptr;
  Frame* frames = nullptr;
  uint32_t stack_used = 0;  // slots / frames held by calls in progress (host re-entry)
  uint32_t depth_used = 0;
  std::atomic<bool> interrupt{false};
  int64_t fuel = -1;
  bool running = false;
  void* host_user = nullptr;          // store_set_host_user
  const WasiConfig* wasi = nullptr;   // wasi_attach: the config shared WASI functions read
  ImportResolver resolver = nullptr;  // store_set_resolver: imports the definitions lack
  void* resolver_ctx = nullptr;

  void* allocate(size_t bytes, bool bulk = false);  // zeroed; tracked; bulk: Allocator::alloc_bulk
  void release(void* p);
};

Trap execute(Store* s, Func* f, const Value* args, Value* results);
// Per internal opcode, the word naming its handler (its address, or its offset from the
// executor's base label where addresses need more than 32 bits): compiled code stores these
// instead of opcodes, so dispatch is a load and an indirect jump. Both tables behind it are
// const (flash on the boards); nothing is built at run time.
struct HandlerWords {
  const void* const* addrs;  // the executor's handler addresses
  int32_t operator[](uint32_t op) const;
};
HandlerWords handler_words();
bool memory_grow(Store* s, Memory* m, uint32_t delta, uint32_t* old_pages);
bool table_grow(Store* s, Table* t, uint32_t delta, uint64_t init, uint32_t* old_size);
uint64_t const_value(const Instance* inst, const ConstExpr& e);
// Fills m->stack_bound from m->call_sites (then released). False: out of memory.
bool compute_stack_bound(Module* m);

}  // namespace wasm
}  // namespace k32
