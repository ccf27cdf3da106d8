// libFuzzer target: arbitrary bytes -> load + validate + instantiate + run every export with
// fuel, small limits and host functions for the spectest imports. Any crash, hang or
// sanitizer report is a bug; rejected modules are the expected common case. So is a
// "call stack exhausted" trap of a module whose value stack bound (module_stack_bound) fits
// the limits: the bound must never be below what a run takes.
// Built and run by `k32 fuzz wasm` (alias `k32 wasm fuzz`; clang -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>

#include "wasm.h"

using namespace k32::wasm;

namespace {
Trap nop(Caller&, const Value*, Value*, void*) { return trap_ok(); }
Trap touch_memory(Caller& c, const Value* args, Value*, void*) {
  uint8_t b = 0;
  c.read(uint32_t(args[0].bits), &b, 1);
  c.write(uint32_t(args[0].bits), &b, 1);
  return trap_ok();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Error err;
  Module* m = module_load(data, size, default_allocator(), &err);
  if (!m) return 0;
  Limits lim;
  lim.max_memory_pages = 16;
  lim.max_table_elems = 4096;
  lim.value_stack_slots = 8192;
  lim.call_depth = 256;
  const StackBound& bound = module_stack_bound(m);
  const bool fits = bound.bounded && bound.slots <= lim.value_stack_slots && bound.frames <= lim.call_depth;
  auto check = [&](const Trap& t) {
    if (fits && t.code == TrapCode::CallStackExhausted) __builtin_trap();
  };
  Store* s = store_new(default_allocator(), lim);
  if (s) {
    store_define_host(s, "spectest", "print", ":", nop, nullptr);
    store_define_host(s, "spectest", "print_i32", "i:", touch_memory, nullptr);
    store_define_host(s, "spectest", "print_i64", "I:", nop, nullptr);
    store_define(s, "spectest", "global_i32", {ExternKind::Global, global_new(s, ValType::I32, false, {666})});
    store_define(s, "spectest", "table", {ExternKind::Table, table_new(s, ValType::FuncRef, 10, 20)});
    store_define(s, "spectest", "memory", {ExternKind::Memory, memory_new(s, 1, 2)});
    store_set_fuel(s, 20000);
    Trap trap = trap_ok();
    Instance* inst = instantiate(s, m, &err, &trap);
    if (!inst) check(trap);
    const char* name;
    Extern e;
    for (uint32_t i = 0; inst && instance_export_at(inst, i, &name, &e); i++) {
      if (e.kind != ExternKind::Func) continue;
      Func* f = static_cast<Func*>(e.ptr);
      Value args[16] = {}, results[16];
      uint32_t np = func_param_count(f), nr = func_result_count(f);
      if (np > 16 || nr > 16) continue;
      for (uint32_t k = 0; k < np; k++) args[k].bits = k * 0x9E3779B97F4A7C15ull;
      for (uint32_t k = 0; k < np; k++) {
        ValType t = func_param_type(f, k);
        if (t == ValType::FuncRef || t == ValType::ExternRef) args[k].bits = 0;
        if (t == ValType::I32 || t == ValType::F32) args[k].bits &= 0xFFFFFFFFu;
      }
      store_set_fuel(s, 20000);
      check(call(s, f, args, np, results, nr));
    }
    store_free(s);
  }
  module_free(m);
  return 0;
}
