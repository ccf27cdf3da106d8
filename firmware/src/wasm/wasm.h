// Kube32 WebAssembly interpreter: the one public header.
//
// WebAssembly 2.0 core without SIMD. Modules are decoded, validated and compiled once
// (module_load) into an internal pre-decoded code; a Store holds instances, memories,
// tables, globals and host functions of one pod and frees them all together.
// No dependency on the rest of the core: memory comes from the Allocator the embedder
// passes (the kubelet passes port::mem_alloc), so per-pod accounting is exact.
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace wasm {

constexpr uint32_t kPageSize = 65536;

enum class ValType : uint8_t {
  I32 = 0x7F,
  I64 = 0x7E,
  F32 = 0x7D,
  F64 = 0x7C,
  FuncRef = 0x70,
  ExternRef = 0x6F,
};

// A value is its raw bits: i32/f32 in the low 32 bits (zero-extended), i64/f64 as is,
// funcref a Func* (0 = null), externref an opaque non-zero host word (0 = null).
struct Value {
  uint64_t bits;
};

// Allocation callbacks; alloc may return nullptr and every caller handles it.
struct Allocator {
  void* (*alloc)(void* ctx, size_t bytes);
  void (*free)(void* ctx, void* p);
  void* ctx;
  // Linear memories and the value stack: the large blocks only the pod's own code touches,
  // which an embedder may place in slower, larger RAM (PSRAM on the boards) while the small
  // bookkeeping stays in fast RAM. nullptr: `alloc` takes them too. Freed with `free`.
  void* (*alloc_bulk)(void* ctx, size_t bytes);
};
// malloc/free, for tools and tests.
const Allocator& default_allocator();

enum class TrapCode : uint8_t {
  None = 0,
  Unreachable,
  MemoryOutOfBounds,
  TableOutOfBounds,
  IndirectCallTypeMismatch,
  UninitializedElement,
  IntegerOverflow,
  IntegerDivideByZero,
  InvalidConversion,
  CallStackExhausted,
  Interrupted,
  OutOfFuel,
  OutOfMemory,
  HostError,
  Exit,  // WASI proc_exit: exit_code holds the status
};

struct Trap {
  TrapCode code;
  int32_t exit_code;    // only for TrapCode::Exit
  const char* message;  // static string, never null
  bool ok() const { return code == TrapCode::None; }
};
Trap trap_ok();
Trap trap_make(TrapCode code, const char* message = nullptr);
const char* trap_text(TrapCode code);  // spec wording, e.g. "integer divide by zero"

// Load/link errors: one line naming the section and byte offset or the import.
struct Error {
  enum Kind : uint8_t { None, Malformed, Invalid, Unlinkable, OutOfMemory } kind;
  char message[160];
};

struct Limits {
  uint32_t max_memory_pages = 65536;  // hard cap over what modules declare
  uint32_t max_table_elems = 1u << 20;
  uint32_t value_stack_slots = 1u << 16;  // 8 bytes each
  uint32_t call_depth = 2048;
  // A module that never asks its memory's size (no memory.size, no memory.grow) and exports
  // __heap_base gets only the bytes below __heap_base (its data and shadow stack) instead of
  // whole 64 KiB pages, as WAMR does on microcontrollers: a page is most of a small board's
  // RAM, and nothing such a module computes can point past __heap_base.
  bool trim_to_heap_base = false;
};

class Module;
class Store;
struct Instance;
struct Func;
struct Table;
struct Memory;
struct Global;

// ---- modules: load and validate once, instantiate many times ----
Module* module_load(const uint8_t* bytes, size_t len, const Allocator& a, Error* err);
void module_free(Module* m);
size_t module_code_bytes(const Module* m);  // compiled code + metadata, for reports
// The most linear memory an instance of `m` can ever hold under `limits`: its bytes below
// __heap_base when trimmed (Limits::trim_to_heap_base), else its initial pages when it has no
// memory.grow or its declared maximum pages
// (capped by limits.max_memory_pages), 0 without a memory of its own; UINT64_MAX when it
// imports its memory or declares no maximum (it may grow up to whatever it is allowed).
uint64_t module_memory_reach(const Module* m, const Limits& limits);
// The most value stack (8-byte slots) and frames a call of any export or the start function
// can take, over the module's call graph, computed once at load: a function's frame is its
// locals and its maximum operand height; a call's frame starts at its first argument's slot
// in the caller's (the arguments become the callee's first locals). A host function is a leaf
// (its arguments copied above its results); call_indirect takes the worst function of its
// type the module can ever place in a table. What no table of calls can bound (recursion, a
// call through an imported table) is `bounded == false`, with `why` naming it: the
// "call stack exhausted" trap is then the only limit, as it is for any module.
struct StackBound {
  bool bounded;
  uint32_t slots;   // the value stack a run needs to never trap for lack of it (bounded only)
  uint32_t frames;  // the call depth likewise
  char why[64];     // unbounded: e.g. "function 12 calls itself (recursion)"
};
const StackBound& module_stack_bound(const Module* m);

// ---- stores: one per pod ----
Store* store_new(const Allocator& a, const Limits& limits);
void store_free(Store* s);
// Bytes this store holds right now (instances, stacks, linear memories, tables).
size_t store_bytes_in_use(const Store* s);
// Of those, the bytes its linear memories hold (what the embedder reports apart from the rest).
size_t store_linear_bytes(const Store* s);
// Of those, the bytes taken through Allocator::alloc_bulk (linear memories and the value stack).
size_t store_bulk_bytes(const Store* s);
// Safe from any thread: the running code traps with Interrupted within 64 taken jumps
// or calls (a few microseconds). Cleared when the next call starts.
void store_interrupt(Store* s);
// Fuel counts taken jumps (every loop iteration) and calls; < 0 = unlimited (the default).
void store_set_fuel(Store* s, int64_t fuel);
int64_t store_fuel(const Store* s);

// ---- host functions ----
// What a host function sees of its caller: the caller instance's linear memory.
struct Caller {
  Store* store;
  Instance* instance;
  // Copies [addr, addr+len) of the caller's memory; false when out of bounds / no memory.
  bool read(uint32_t addr, void* dst, uint32_t len) const;
  bool write(uint32_t addr, const void* src, uint32_t len) const;
  // Direct view, valid until the guest runs again (memory.grow may move it).
  uint8_t* memory(uint32_t* size) const;
};
using HostFn = Trap (*)(Caller& caller, const Value* args, Value* results, void* user);

// Signatures are written as parameter letters ':' result letters with
// i=i32 I=i64 f=f32 F=f64 r=funcref e=externref, e.g. "iiii:i" or ":" .
enum class ExternKind : uint8_t { Func = 0, Table = 1, Memory = 2, Global = 3 };
struct Extern {
  ExternKind kind;
  void* ptr;  // Func*, Table*, Memory*, Global*
};

Func* host_func_new(Store* s, const char* sig, HostFn fn, void* user);
// A host function outside any store, for many stores to share (one per image, not one per
// instance): its `user` is fixed, so what differs per instance comes from the calling store
// (store_host_user). Freed with host_func_free once no store uses it.
Func* host_func_make(const Allocator& a, const char* sig, HostFn fn, void* user);
void host_func_free(const Allocator& a, Func* f);
// The embedder's context for shared host functions (caller.store), null unless set.
void store_set_host_user(Store* s, void* user);
void* store_host_user(const Store* s);
Global* global_new(Store* s, ValType t, bool mut, Value v);
Table* table_new(Store* s, ValType elem, uint32_t min, uint32_t max /*UINT32_MAX: none*/);
// trim_bytes (0: none): fewer accessible bytes than min_pages x 64 KiB (Limits::trim_to_heap_base).
Memory* memory_new(Store* s, uint32_t min_pages, uint32_t max_pages /*UINT32_MAX: none*/, uint64_t trim_bytes = 0);
uint32_t memory_pages(const Memory* m);
Value global_get(const Global* g);
ValType global_type(const Global* g);

// Names importable by the next instantiations: define("k32", "log", {Func, f}).
bool store_define(Store* s, const char* module, const char* name, Extern e);
bool store_define_host(Store* s, const char* module, const char* name, const char* sig, HostFn fn, void* user);
// From now on store_define_host defines only what `m` imports (and succeeds without a
// definition for the rest): a pod's store then holds its module's few host functions, not
// the whole ABI's. `m` must outlive the store's definitions.
void store_define_only_for(Store* s, const Module* m);
// Imports the store's definitions lack are asked of `resolve` at instantiation (an embedder's
// shared host functions); false from it: unknown import.
using ImportResolver = bool (*)(void* ctx, const char* module, const char* name, Extern* out);
void store_set_resolver(Store* s, ImportResolver resolve, void* ctx);
// Defines every export of `inst` under module name `as` (spec-test `register`).
bool store_register_instance(Store* s, const char* as, Instance* inst);

// Resolves imports from the store's definitions, allocates, runs active segments and the
// start function. Returns nullptr with err (link/alloc error) or trap (start trapped).
Instance* instantiate(Store* s, const Module* m, Error* err, Trap* trap);
bool instance_export(const Instance* inst, const char* name, Extern* out);
// The same for a name of `len` bytes: export names are UTF-8 and may hold NUL bytes.
bool instance_export(const Instance* inst, const char* name, size_t len, Extern* out);
// Export i for i < count; false past the end.
bool instance_export_at(const Instance* inst, uint32_t i, const char** name, Extern* out);
// The i-th import of `m` (its module and field names, NUL-terminated, and kind); false past
// the last. An embedder can make the host functions a module needs before any instance.
bool module_import_at(const Module* m, uint32_t i, const char** module, const char** name, ExternKind* kind);

// Signature of a function in the letter form above, into buf (NUL-terminated).
bool func_signature(const Func* f, char* buf, size_t cap);
uint32_t func_param_count(const Func* f);
uint32_t func_result_count(const Func* f);
ValType func_param_type(const Func* f, uint32_t i);
ValType func_result_type(const Func* f, uint32_t i);

// Runs f to completion. Arity must match the signature (checked).
Trap call(Store* s, Func* f, const Value* args, uint32_t nargs, Value* results, uint32_t nresults);

// ---- WASI preview1 subset (args, environ, fd_write 1/2, clocks, random, proc_exit ...) ----
struct WasiConfig {
  int argc;
  const char* const* argv;
  int envc;
  const char* const* envp;
  // Output sink for fd 1 and 2 (stdout → pod logs); returns false on failure.
  bool (*write)(void* ctx, int fd, const uint8_t* data, size_t len);
  void* write_ctx;
  // WASI clock ids: realtime=0, monotonic=1, process/thread CPU time=2/3 (an embedder without
  // CPU clocks answers those with its monotonic clock).
  uint64_t (*clock_ns)(void* ctx, uint32_t clock_id);
  void (*random)(void* ctx, uint8_t* buf, size_t len);
  void* sys_ctx;
};
// Defines the "wasi_snapshot_preview1" functions in s; cfg must outlive the store.
bool wasi_define(Store* s, const WasiConfig* cfg);
// Instead of wasi_define's functions per store: the signature and function of WASI import
// `name` (false: not provided), for host_func_make with a null user; such a shared function
// reads the config of the calling store, set here (cfg must outlive the store).
bool wasi_function(const char* name, const char** sig, HostFn* fn);
void wasi_attach(Store* s, const WasiConfig* cfg);

}  // namespace wasm
}  // namespace k32
