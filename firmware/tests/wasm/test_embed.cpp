// Embedding API as the kubelet uses it: host functions with caller memory, traps as values,
// interrupt from another thread, fuel, call-stack and memory limits, allocation accounting,
// and malformed input (every prefix and many byte flips of a valid module) never crashing.
#include <atomic>
#include <cstring>
#include <ctime>
#include <string>

#include "check.h"
#include "k32_board.h"
#include "port.h"
#include "wasm.h"

using namespace k32::wasm;

namespace {

// wat2wasm of:
// (module
//   (import "k32" "log" (func $log (param i32 i32) (result i32)))
//   (memory (export "memory") 1 2)
//   (data (i32.const 16) "hi pod")
//   (func (export "log") (param i32) (result i32) (call $log (i32.const 16) (local.get 0)))
//   (func (export "spin") (loop (br 0)))
//   (func $rec (export "rec") (call $rec))
//   (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
//   (func (export "sum") (param i32) (result i32) (local i32)
//     (loop (local.set 1 (i32.add (local.get 1) (local.get 0)))
//       (br_if 0 (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
//     (local.get 1)))
const uint8_t kModule[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0f, 0x03, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x01,
    0x7f, 0x60, 0x00, 0x00, 0x02, 0x0b, 0x01, 0x03, 0x6b, 0x33, 0x32, 0x03, 0x6c, 0x6f, 0x67, 0x00, 0x00, 0x03, 0x06, 0x05, 0x01,
    0x02, 0x02, 0x01, 0x01, 0x05, 0x04, 0x01, 0x01, 0x01, 0x02, 0x07, 0x2a, 0x06, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02,
    0x00, 0x03, 0x6c, 0x6f, 0x67, 0x00, 0x01, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x02, 0x03, 0x72, 0x65, 0x63, 0x00, 0x03, 0x04,
    0x67, 0x72, 0x6f, 0x77, 0x00, 0x04, 0x03, 0x73, 0x75, 0x6d, 0x00, 0x05, 0x0a, 0x38, 0x05, 0x08, 0x00, 0x41, 0x10, 0x20, 0x00,
    0x10, 0x00, 0x0b, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, 0x04, 0x00, 0x10, 0x03, 0x0b, 0x06, 0x00, 0x20, 0x00, 0x40,
    0x00, 0x0b, 0x19, 0x01, 0x01, 0x7f, 0x03, 0x40, 0x20, 0x01, 0x20, 0x00, 0x6a, 0x21, 0x01, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x22,
    0x00, 0x0d, 0x00, 0x0b, 0x20, 0x01, 0x0b, 0x0b, 0x0c, 0x01, 0x00, 0x41, 0x10, 0x0b, 0x06, 0x68, 0x69, 0x20, 0x70, 0x6f, 0x64};

// wat2wasm of (calls without recursion: direct, through the table, to the host):
// (module
//   (import "k32" "log" (func $log (param i32 i32) (result i32)))
//   (type $t (func (param i32) (result i32)))
//   (memory 1)
//   (table 2 funcref)
//   (elem (i32.const 0) $sq $twice)
//   (func $sq (type $t) (local i64) (i32.mul (local.get 0) (local.get 0)))
//   (func $twice (type $t) (i32.add (call $sq (local.get 0)) (call $sq (i32.const 3))))
//   (func (export "run") (param i32) (result i32)
//     (i32.add (i32.const 1)
//       (i32.add (call_indirect (type $t) (local.get 0) (i32.and (local.get 0) (i32.const 1)))
//                (call $log (i32.const 0) (call $twice (local.get 0)))))))
const uint8_t kCalls[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0c, 0x02, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01,
    0x7f, 0x02, 0x0b, 0x01, 0x03, 0x6b, 0x33, 0x32, 0x03, 0x6c, 0x6f, 0x67, 0x00, 0x01, 0x03, 0x04, 0x03, 0x00, 0x00, 0x00, 0x04,
    0x04, 0x01, 0x70, 0x00, 0x02, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x03, 0x09, 0x08,
    0x01, 0x00, 0x41, 0x00, 0x0b, 0x02, 0x01, 0x02, 0x0a, 0x30, 0x03, 0x09, 0x01, 0x01, 0x7e, 0x20, 0x00, 0x20, 0x00, 0x6c, 0x0b,
    0x0b, 0x00, 0x20, 0x00, 0x10, 0x01, 0x41, 0x03, 0x10, 0x01, 0x6a, 0x0b, 0x18, 0x00, 0x41, 0x01, 0x20, 0x00, 0x20, 0x00, 0x41,
    0x01, 0x71, 0x11, 0x00, 0x00, 0x41, 0x00, 0x20, 0x00, 0x10, 0x02, 0x10, 0x00, 0x6a, 0x6a, 0x0b};

// wat2wasm of (a tight search loop, the kind an interpreter is tempted to run natively inside
// one instruction, the same loop one instruction longer, and such a loop that never ends):
// (module
//   (memory 1)
//   (data (i32.const 400) "\ff")
//   (func (export "scan") (param $p i32) (param $q i32) (result i32) (local $i i32) (local $v i32)
//     (loop $l
//       (local.set $i (i32.add (local.get $i) (i32.const 1)))
//       (br_if $l (i32.lt_u (local.tee $v (i32.load (local.tee $p (i32.add (local.get $p) (i32.const 4)))))
//                           (local.get $q))))
//     (local.get $i))
//   (func (export "scan step") (param $p i32) (param $q i32) (result i32)
//     (local $i i32) (local $v i32) (local $c i32)
//     (loop $l
//       (local.set $c (i32.xor (local.get $c) (local.get $p)))
//       (local.set $i (i32.add (local.get $i) (i32.const 1)))
//       (br_if $l (i32.lt_u (local.tee $v (i32.load (local.tee $p (i32.add (local.get $p) (i32.const 4)))))
//                           (local.get $q))))
//     (local.get $i))
//   (func (export "spin scan") (param $p i32) (param $q i32) (result i32) (local $i i32) (local $v i32)
//     (loop $l
//       (local.set $i (i32.add (local.get $i) (i32.const 1)))
//       (br_if $l (i32.lt_u (local.tee $v (i32.load (local.tee $p (i32.add (local.get $p) (i32.const 0)))))
//                           (local.get $q))))
//     (local.get $i)))
const uint8_t kSearchModule[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x03, 0x04, 0x03, 0x00,
    0x00, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x20, 0x03, 0x04, 0x73, 0x63, 0x61, 0x6e, 0x00, 0x00, 0x09, 0x73, 0x63, 0x61,
    0x6e, 0x20, 0x73, 0x74, 0x65, 0x70, 0x00, 0x01, 0x09, 0x73, 0x70, 0x69, 0x6e, 0x20, 0x73, 0x63, 0x61, 0x6e, 0x00, 0x02, 0x0a,
    0x6e, 0x03, 0x21, 0x01, 0x02, 0x7f, 0x03, 0x40, 0x20, 0x02, 0x41, 0x01, 0x6a, 0x21, 0x02, 0x20, 0x00, 0x41, 0x04, 0x6a, 0x22,
    0x00, 0x28, 0x02, 0x00, 0x22, 0x03, 0x20, 0x01, 0x49, 0x0d, 0x00, 0x0b, 0x20, 0x02, 0x0b, 0x28, 0x01, 0x03, 0x7f, 0x03, 0x40,
    0x20, 0x04, 0x20, 0x00, 0x73, 0x21, 0x04, 0x20, 0x02, 0x41, 0x01, 0x6a, 0x21, 0x02, 0x20, 0x00, 0x41, 0x04, 0x6a, 0x22, 0x00,
    0x28, 0x02, 0x00, 0x22, 0x03, 0x20, 0x01, 0x49, 0x0d, 0x00, 0x0b, 0x20, 0x02, 0x0b, 0x21, 0x01, 0x02, 0x7f, 0x03, 0x40, 0x20,
    0x02, 0x41, 0x01, 0x6a, 0x21, 0x02, 0x20, 0x00, 0x41, 0x00, 0x6a, 0x22, 0x00, 0x28, 0x02, 0x00, 0x22, 0x03, 0x20, 0x01, 0x49,
    0x0d, 0x00, 0x0b, 0x20, 0x02, 0x0b, 0x0b, 0x08, 0x01, 0x00, 0x41, 0x90, 0x03, 0x0b, 0x01, 0xff};

// Counting allocator standing in for port::mem_alloc.
struct Counting {
  size_t live = 0;
  size_t budget = size_t(-1);
};
void* count_alloc(void* ctx, size_t n) {
  Counting* c = static_cast<Counting*>(ctx);
  if (c->live + n > c->budget) return nullptr;
  size_t* p = static_cast<size_t*>(std::malloc(n + sizeof(size_t) * 2));
  if (!p) return nullptr;
  p[0] = n;
  c->live += n;
  return p + 2;
}
void count_free(void* ctx, void* q) {
  if (!q) return;
  size_t* p = static_cast<size_t*>(q) - 2;
  static_cast<Counting*>(ctx)->live -= p[0];
  std::free(p);
}

struct LogSink {
  std::string text;
  int calls = 0;
};
Trap host_log(Caller& c, const Value* args, Value* results, void* user) {
  LogSink* sink = static_cast<LogSink*>(user);
  uint32_t ptr = uint32_t(args[0].bits), len = uint32_t(args[1].bits);
  char buf[64];
  if (len > sizeof buf || !c.read(ptr, buf, len)) return trap_make(TrapCode::HostError, "log: bad buffer");
  sink->text.assign(buf, len);
  sink->calls++;
  const char reply[] = "ok";
  CHECK(c.write(0, reply, 2));
  results[0].bits = len * 2;
  return trap_ok();
}

Func* export_func(Instance* inst, const char* name) {
  Extern e;
  if (!instance_export(inst, name, &e) || e.kind != ExternKind::Func) return nullptr;
  return static_cast<Func*>(e.ptr);
}

void test_host_functions_and_memory() {
  Counting counting;
  Allocator a{count_alloc, count_free, &counting, nullptr};
  Error err;
  Module* m = module_load(kModule, sizeof kModule, a, &err);
  CHECK(m != nullptr);
  if (!m) return;
  Limits lim;
  lim.value_stack_slots = 4096;
  lim.call_depth = 256;
  // one module, two instances in two stores (two pods of one image)
  for (int pod = 0; pod < 2; pod++) {
    Store* s = store_new(a, lim);
    CHECK(s != nullptr);
    LogSink sink;
    CHECK(store_define_host(s, "k32", "log", "ii:i", host_log, &sink));
    Trap trap;
    Instance* inst = instantiate(s, m, &err, &trap);
    CHECK(inst != nullptr);
    Func* f = export_func(inst, "log");
    char sig[16];
    CHECK(func_signature(f, sig, sizeof sig) && std::strcmp(sig, "i:i") == 0);
    Value arg{6}, res{0};
    CHECK(call(s, f, &arg, 1, &res, 1).ok());
    CHECK_EQ(res.bits, 12u);
    CHECK(sink.text == "hi pod");
    Extern mem;
    CHECK(instance_export(inst, "memory", &mem) && mem.kind == ExternKind::Memory);
    // a host trap comes back as a value with its message
    arg.bits = 100;
    Trap t = call(s, f, &arg, 1, &res, 1);
    CHECK(t.code == TrapCode::HostError && std::strcmp(t.message, "log: bad buffer") == 0);
    // wrong arity is refused, not executed
    CHECK(call(s, f, nullptr, 0, &res, 1).code == TrapCode::HostError);
    CHECK(counting.live > 65536);  // the linear memory is accounted to this allocator
    CHECK(store_bytes_in_use(s) > 65536);
    store_free(s);
  }
  module_free(m);
  CHECK_EQ(counting.live, 0u);
}

void test_limits() {
  Error err;
  Module* m = module_load(kModule, sizeof kModule, default_allocator(), &err);
  CHECK(m != nullptr);
  if (!m) return;
  Limits lim;
  lim.max_memory_pages = 1;  // limits.memory of 64Ki
  lim.call_depth = 100;
  Store* s = store_new(default_allocator(), lim);
  LogSink sink;
  CHECK(store_define_host(s, "k32", "log", "ii:i", host_log, &sink));
  Trap trap;
  Instance* inst = instantiate(s, m, &err, &trap);
  CHECK(inst != nullptr);
  Value arg{1}, res{0};
  CHECK(call(s, export_func(inst, "grow"), &arg, 1, &res, 1).ok());
  CHECK_EQ(uint32_t(res.bits), 0xFFFFFFFFu);  // capped at one page although the module allows two
  Trap t = call(s, export_func(inst, "rec"), nullptr, 0, nullptr, 0);
  CHECK(t.code == TrapCode::CallStackExhausted);
  CHECK(std::strcmp(t.message, "call stack exhausted") == 0);
  // fuel stops a runaway loop deterministically
  store_set_fuel(s, 1000);
  t = call(s, export_func(inst, "spin"), nullptr, 0, nullptr, 0);
  CHECK(t.code == TrapCode::OutOfFuel);
  CHECK_EQ(store_fuel(s), 0);
  store_set_fuel(s, -1);
  arg.bits = 100;
  CHECK(call(s, export_func(inst, "sum"), &arg, 1, &res, 1).ok());
  CHECK_EQ(res.bits, 5050u);
  store_free(s);

  // a module whose minimum memory exceeds the cap does not instantiate
  lim.max_memory_pages = 0;
  s = store_new(default_allocator(), lim);
  CHECK(store_define_host(s, "k32", "log", "ii:i", host_log, &sink));
  CHECK(instantiate(s, m, &err, &trap) == nullptr);
  CHECK(err.kind == Error::OutOfMemory);
  store_free(s);
  module_free(m);
}

// A tight search loop spends fuel like any other loop, however it is compiled: one unit per
// repetition (a taken jump), and it stops exactly when the fuel runs out.
void test_search_loop_fuel() {
  Error err;
  Module* m = module_load(kSearchModule, sizeof kSearchModule, default_allocator(), &err);
  CHECK(m != nullptr);
  if (!m) return;
  Store* s = store_new(default_allocator(), Limits());
  Trap trap;
  Instance* inst = instantiate(s, m, &err, &trap);
  CHECK(inst != nullptr);
  int64_t used[2] = {0, 0};
  const char* names[2] = {"scan", "scan step"};
  for (int k = 0; k < 2; k++) {
    Func* f = export_func(inst, names[k]);
    Value args[2] = {{0}, {1}}, res{0};
    store_set_fuel(s, 1000);
    CHECK(call(s, f, args, 2, &res, 1).ok());
    CHECK_EQ(res.bits, 100u);  // the word at 400 ends the search
    used[k] = 1000 - store_fuel(s);
    store_set_fuel(s, used[k] - 1);
    CHECK(call(s, f, args, 2, &res, 1).code == TrapCode::OutOfFuel);
    CHECK_EQ(store_fuel(s), 0);
    store_set_fuel(s, used[k]);
    CHECK(call(s, f, args, 2, &res, 1).ok());
    CHECK_EQ(store_fuel(s), 0);
  }
  CHECK(used[0] >= 99);  // 99 repetitions after the first pass
  CHECK_EQ(used[0], used[1]);
  store_free(s);
  module_free(m);
}

// CPU time of this process in ns: unlike wall-clock time it does not grow while a busy
// machine runs other processes instead of this test, and the killer thread sleeps, so it
// is the running call's time. (std::clock: also on platforms without POSIX clocks.)
int64_t cpu_ns() { return int64_t(std::clock()) * (1000000000 / int64_t(CLOCKS_PER_SEC)); }

// Interrupts `f` (arguments `args`) from another thread 50 ms into its run: it must stop
// with Interrupted within 10 ms of CPU time after the request. Platforms without a second
// thread (the bare-metal build) skip it: nothing could stop the endless loops.
struct Killer {
  Store* store;
  int64_t stop_ns = 0;  // written before `done`, read after it
  std::atomic<bool> done{false};
};

void kill_after_50ms(void* arg) {
  Killer* k = static_cast<Killer*>(arg);
  k32::port::sleep_ms(50);
  k->stop_ns = cpu_ns();
  store_interrupt(k->store);
  k->done = true;
}

void check_interrupted(Store* s, Func* f, Value* args, uint32_t nargs, uint32_t nres) {
  Killer killer;
  killer.store = s;
  if (!k32::port::thread_start("k32_killer", K32_EVENTS_STACK_BYTES, k32::port::Region::Internal, kill_after_50ms, &killer)) {
    std::printf("no second thread on this platform: interrupt from another thread not checked\n");
    return;
  }
  Value res[1];
  Trap t = call(s, f, args, nargs, res, nres);
  int64_t stopped = cpu_ns();
  while (!killer.done) k32::port::sleep_ms(1);
  CHECK(t.code == TrapCode::Interrupted);
  // not a speed target: a generous bound that only a missing check would exceed
  CHECK(stopped - killer.stop_ns < 10 * 1000 * 1000);
}

void test_interrupt_from_thread() {
  Error err;
  Module* m = module_load(kModule, sizeof kModule, default_allocator(), &err);
  Store* s = store_new(default_allocator(), Limits());
  LogSink sink;
  CHECK(store_define_host(s, "k32", "log", "ii:i", host_log, &sink));
  Trap trap;
  Instance* inst = instantiate(s, m, &err, &trap);
  check_interrupted(s, export_func(inst, "spin"), nullptr, 0, 0);
  // the next call starts with the flag cleared
  Value arg{3}, res{0};
  CHECK(call(s, export_func(inst, "sum"), &arg, 1, &res, 1).ok());
  CHECK_EQ(res.bits, 6u);
  store_free(s);
  module_free(m);

  // a tight search loop that never ends stops the same way
  m = module_load(kSearchModule, sizeof kSearchModule, default_allocator(), &err);
  s = store_new(default_allocator(), Limits());
  inst = instantiate(s, m, &err, &trap);
  CHECK(inst != nullptr);
  Value scan_args[2] = {{0}, {1}};
  if (inst) check_interrupted(s, export_func(inst, "spin scan"), scan_args, 2, 1);
  store_free(s);
  module_free(m);
}

// Runs every export of `m` (zero arguments, bounded by fuel) in a store of exactly `slots`
// value stack slots and `frames` call depth; the first trap other than running out of fuel,
// or None.
TrapCode run_within(const Module* m, uint32_t slots, uint32_t frames, const Value* arg) {
  Limits lim;
  lim.max_memory_pages = 2;  // a flip that asks for more fails to instantiate (small targets)
  lim.value_stack_slots = slots;
  lim.call_depth = frames;
  Store* s = store_new(default_allocator(), lim);
  CHECK(s != nullptr);
  if (!s) return TrapCode::OutOfMemory;
  LogSink sink;
  store_define_host(s, "k32", "log", "ii:i", host_log, &sink);
  Error err;
  Trap trap = trap_ok();
  Instance* inst = instantiate(s, m, &err, &trap);
  TrapCode got = trap.ok() || trap.code == TrapCode::OutOfFuel ? TrapCode::None : trap.code;
  const char* name;
  Extern e;
  for (uint32_t k = 0; inst && got == TrapCode::None && instance_export_at(inst, k, &name, &e); k++) {
    if (e.kind != ExternKind::Func) continue;
    Func* f = static_cast<Func*>(e.ptr);
    Value args[8] = {}, res[8];
    if (func_param_count(f) > 8 || func_result_count(f) > 8) continue;
    if (arg && func_param_count(f) > 0) args[0] = *arg;
    store_set_fuel(s, 10000);
    trap = call(s, f, args, func_param_count(f), res, func_result_count(f));
    if (!trap.ok() && trap.code != TrapCode::OutOfFuel) got = trap.code;
  }
  store_free(s);
  return got;
}

// module_stack_bound: exact where the worst path runs (one slot or frame less traps), a
// recursive module unbounded, and never below what a run takes, over many byte flips of a
// module (each flipped module that loads and has a bound runs every export within it).
void test_stack_bound() {
  Error err;
  Module* rec = module_load(kModule, sizeof kModule, default_allocator(), &err);
  CHECK(rec != nullptr);
  if (rec) {
    CHECK(!module_stack_bound(rec).bounded);
    CHECK(std::strstr(module_stack_bound(rec).why, "calls itself") != nullptr);
  }
  module_free(rec);
  Module* m = module_load(kCalls, sizeof kCalls, default_allocator(), &err);
  CHECK(m != nullptr);
  if (!m) return;
  const StackBound b = module_stack_bound(m);
  CHECK(b.bounded);
  // run's call of $twice starts at its slot 4 (1 param, 3 operands below); $twice's second call
  // of $sq at its slot 2 (1 param, 1 operand below); $sq: 1 param + 1 local + 2 operands
  CHECK_EQ(b.slots, 4u + 2u + 4u);
  CHECK_EQ(b.frames, 3u);  // run -> $twice -> $sq
  const Value worst{1};    // through the table to $twice
  CHECK(run_within(m, b.slots, b.frames, &worst) == TrapCode::None);
  CHECK(run_within(m, b.slots - 1, b.frames, &worst) == TrapCode::CallStackExhausted);
  CHECK(run_within(m, b.slots, b.frames - 1, &worst) == TrapCode::CallStackExhausted);
  module_free(m);

  uint8_t buf[sizeof kCalls];
  int bounded = 0;
  for (size_t i = 8; i < sizeof kCalls; i++) {
    for (int bit = 0; bit < 8; bit++) {
      std::memcpy(buf, kCalls, sizeof buf);
      buf[i] ^= uint8_t(1u << bit);
      Module* f = module_load(buf, sizeof buf, default_allocator(), &err);
      if (!f) continue;
      const StackBound fb = module_stack_bound(f);
      if (fb.bounded && fb.slots <= 4096) {
        bounded++;
        TrapCode got = run_within(f, fb.slots ? fb.slots : 1, fb.frames, &worst);
        CHECK(got != TrapCode::CallStackExhausted);
        if (got == TrapCode::CallStackExhausted) std::fprintf(stderr, "  flip of byte %d bit %d\n", int(i), bit);
      }
      module_free(f);
    }
  }
  CHECK(bounded > 50);
}

void test_malformed_never_crashes() {
  Error err;
  // truncations end at section boundaries (valid) or are rejected with a message
  int rejected = 0;
  for (size_t n = 0; n < sizeof kModule; n++) {
    Module* m = module_load(kModule, n, default_allocator(), &err);
    if (!m) {
      rejected++;
      CHECK(err.message[0] != 0);
    }
    module_free(m);
  }
  CHECK(rejected > int(sizeof kModule) - 10);
  // byte flips either load (and then run bounded) or fail cleanly
  uint8_t buf[sizeof kModule];
  int loaded = 0;
  for (size_t i = 8; i < sizeof kModule; i++) {
    for (int bit = 0; bit < 8; bit++) {
      std::memcpy(buf, kModule, sizeof buf);
      buf[i] ^= uint8_t(1u << bit);
      Module* m = module_load(buf, sizeof buf, default_allocator(), &err);
      if (!m) {
        CHECK(err.kind != Error::None);
        continue;
      }
      loaded++;
      Limits lim;
      lim.value_stack_slots = 1024;
      lim.call_depth = 64;
      Store* s = store_new(default_allocator(), lim);
      LogSink sink;
      store_define_host(s, "k32", "log", "ii:i", host_log, &sink);
      Trap trap;
      Instance* inst = instantiate(s, m, &err, &trap);
      const char* name;
      Extern e;
      for (uint32_t k = 0; inst && instance_export_at(inst, k, &name, &e); k++) {
        if (e.kind != ExternKind::Func) continue;
        Func* f = static_cast<Func*>(e.ptr);
        Value args[8] = {}, res[8];
        if (func_param_count(f) > 8 || func_result_count(f) > 8) continue;
        store_set_fuel(s, 10000);
        call(s, f, args, func_param_count(f), res, func_result_count(f));
      }
      store_free(s);
      module_free(m);
    }
  }
  CHECK(loaded > 0);
}

}  // namespace

int main() {
  test_host_functions_and_memory();
  test_limits();
  test_search_loop_fuel();
  test_interrupt_from_thread();
  test_malformed_never_crashes();
  test_stack_bound();
  TEST_MAIN_END();
}
