// The executor: computed-goto dispatch over the slot-machine code of ops.h. Locals and
// operands live in one bounded array of 64-bit slots; frames in another. Stack space for a
// whole call is checked once at entry (the compiler knows each function's maximum height),
// so instructions need no checks and recursion can never overflow the native stack: deep
// recursion ends in a clean "call stack exhausted" trap.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "internal.h"
#include "exec_hot.h"
#include "fused.h"
#include "ops.h"

#if !defined(__GNUC__)
#error "the interpreter uses computed goto (GCC/Clang labels as values)"
#endif

// Compiled code names each instruction's handler in a 32-bit word. Where code addresses fit
// in one (32-bit targets such as the ESP32, position-dependent x86-64 builds) the word is
// the handler's address and dispatch is a load and a jump; elsewhere it is the handler's
// offset from a base address kept in a register, which costs an add per instruction.
#if !defined(K32_WASM_ABSOLUTE_DISPATCH)
#if UINTPTR_MAX == 0xFFFFFFFFu || (defined(__x86_64__) && !defined(__PIC__) && !defined(__PIE__))
#define K32_WASM_ABSOLUTE_DISPATCH 1
#else
#define K32_WASM_ABSOLUTE_DISPATCH 0
#endif
#endif

// Hot and cold handlers. exec_hot.h defines K32_HOT_<label> as K32_HOT for each handler the
// profile of the benchmark set found hot; K32_IS_HOT(label) is 1 for those, 0 for the rest
// (the usual preprocessor probe: K32_HOT supplies a second argument, which is picked).
// K32_HANDLER(label, body) then picks K32_HANDLER_1 or K32_HANDLER_0, which execute() and
// exec_cold() define.
// The split exists to keep the loop small where a board places it in instruction RAM
// (K32_PORT_FAST_CODE_SECTION) and in the builds that stand for those boards
// (K32_WASM_HOT_SPLIT: the Cortex-M4 build, whose sizes are theirs, and the fuzzing build).
// Elsewhere — the host, a board whose loop stays in flash — every handler is in the loop: a
// program the profile did not see (other types, other variants, other fused forms) would
// otherwise pay a call of about 60 host instructions for each of its instructions that is cold.
#define K32_HOT ~, 1
#define K32_PROBE_2ND(a, b, ...) b
#define K32_PROBE(...) K32_PROBE_2ND(__VA_ARGS__, 0, 0)
#if defined(K32_PORT_FAST_CODE_SECTION) || defined(K32_WASM_HOT_SPLIT)
#define K32_WASM_SPLIT 1
#define K32_IS_HOT(label) K32_PROBE(K32_HOT_##label)
#else
#define K32_WASM_SPLIT 0  // no cold handlers: no `cold` block, nothing for exec_cold() to run
#define K32_IS_HOT(label) 1
#endif
#define K32_CAT_(a, b) a##b
#define K32_CAT(a, b) K32_CAT_(a, b)
#define K32_HANDLER(label, ...) K32_CAT(K32_HANDLER_, K32_IS_HOT(label))(label, __VA_ARGS__)

// Every handler of the executor as K32_R(opcode, label suffix), expanded twice: into the
// opcodes (a constexpr table mapping each opcode to its entry) and, inside execute(), into the
// handler addresses (a const table, so it stays in flash on the boards). Opcodes not listed
// reach L_bad, the first entry (and the base of relative dispatch).
//
// The WebAssembly instructions' handlers and variants come from the opcode table (opcodes.h)
// by each row's forms; the fused instructions' from fused.h.
#define K32_REG_ROW(name, byte, group, in1, in2, out, forms, handler) K32_REG_##forms(byte, handler)
#define K32_REG_FC_ROW(name, sub, group, in1, in2, out, forms, handler) K32_R(op::kFC + sub, handler)
#define K32_REG_N(b, h)
#define K32_REG_R(b, h)
#define K32_REG_S(b, h) K32_R(b, h)
#define K32_REG_SI(b, h) K32_R(b, h) K32_R(op::kImm + b, h##_i)
#define K32_REG_SID(b, h) K32_REG_SI(b, h)
#define K32_REG_SIC(b, h) K32_REG_SI(b, h)
#define K32_REG_SIAC(b, h) K32_REG_SIA(b, h)
// Kept out of clang-format: macro rows grouped by meaning, one group a line.
// clang-format off
#define K32_REG_SIA(b, h)                                                                    \
  K32_REG_SI(b, h) K32_R(op::acc_op(op::kSSA, b), h##_v0) K32_R(op::acc_op(op::kSIA, b), h##_v1) \
  K32_R(op::acc_op(op::kASS, b), h##_v2) K32_R(op::acc_op(op::kASA, b), h##_v3)                  \
  K32_R(op::acc_op(op::kAIS, b), h##_v4) K32_R(op::acc_op(op::kAIA, b), h##_v5)                  \
  K32_R(op::acc_op(op::kSAS, b), h##_v6) K32_R(op::acc_op(op::kSAA, b), h##_v7)
// loads and stores: every address form, then the accumulator variants (ops.h)
#define K32_REG_LOAD(b, h)                                                                   \
  K32_R(b, h) K32_R(op::kAbs + b - opc::kI32Load, h##_a) K32_R(op::kWrap + b - opc::kI32Load, h##_w)              \
  K32_R(op::load_acc(op::kBaseAS, b), h##_bas) K32_R(op::load_acc(op::kBaseSA, b), h##_bsa)      \
  K32_R(op::load_acc(op::kBaseAA, b), h##_baa) K32_R(op::load_acc(op::kWrapAS, b), h##_was)      \
  K32_R(op::load_acc(op::kWrapSA, b), h##_wsa) K32_R(op::load_acc(op::kWrapAA, b), h##_waa)
#define K32_REG_STORE(b, h)                                                                  \
  K32_R(b, h) K32_R(op::kAbs + b - opc::kI32Load, h##_a) K32_R(op::kWrap + b - opc::kI32Load, h##_w)              \
  K32_R(op::store_acc(op::kBaseV, b), h##_bv) K32_R(op::store_acc(op::kWrapV, b), h##_wv)        \
  K32_R(op::store_acc(op::kWrapAddr, b), h##_waddr) K32_R(op::store_acc(op::kAbsV, b), h##_av)    \
  K32_R(op::store_imm(op::kImmBase, b), h##_ib) K32_R(op::store_imm(op::kImmWrap, b), h##_iw)      \
  K32_R(op::store_imm(op::kImmAbs, b), h##_ia)
// 8-byte stores have no constant-value forms (a constant is written from a slot)
#define K32_REG_STORE64(b, h)                                                                \
  K32_R(b, h) K32_R(op::kAbs + b - opc::kI32Load, h##_a) K32_R(op::kWrap + b - opc::kI32Load, h##_w) \
  K32_R(op::store_acc(op::kBaseV, b), h##_bv) K32_R(op::store_acc(op::kWrapV, b), h##_wv)        \
  K32_R(op::store_acc(op::kWrapAddr, b), h##_waddr) K32_R(op::store_acc(op::kAbsV, b), h##_av)
#define K32_REG_Load0(b, h) K32_REG_LOAD(b, h)
#define K32_REG_Load1(b, h) K32_REG_LOAD(b, h)
#define K32_REG_Load2(b, h) K32_REG_LOAD(b, h)
#define K32_REG_Load3(b, h) K32_REG_LOAD(b, h)
#define K32_REG_Store0(b, h) K32_REG_STORE(b, h)
#define K32_REG_Store1(b, h) K32_REG_STORE(b, h)
#define K32_REG_Store2(b, h) K32_REG_STORE(b, h)
#define K32_REG_Store3(b, h) K32_REG_STORE64(b, h)
#define K32_WASM_HANDLERS                                                                    \
  K32_R(op::kCount, bad)                                                                     \
  K32_WASM_OPCODES(K32_REG_ROW)                                                              \
  K32_WASM_FC_OPCODES(K32_REG_FC_ROW)                                                        \
  K32_R(op::kCopy, copy) K32_R(op::kCopy2, copy2) K32_R(op::kCopyN, copyn)                   \
  K32_R(op::kJmp, jmp) K32_R(op::kJmpIf, jmp_if) K32_R(op::kJmpUnless, jmp_unless)           \
  K32_R(op::kJmpIfA, jmp_if_a) K32_R(op::kJmpUnlessA, jmp_unless_a)                          \
  K32_R(op::kBr, br) K32_R(op::kBrIf, br_if) K32_R(op::kBrTable, br_table) K32_R(op::kBrTableA, br_table_a)                   \
  K32_R(op::kReturn, ret) K32_R(op::kReturn1, ret1) K32_R(op::kReturn1A, ret1_a) K32_R(op::kCallDirect, call_direct)      \
  K32_R(op::kSelectImm + 0, select_is) K32_R(op::kSelectImm + 1, select_si)                  \
  K32_R(op::kSelectImm + 2, select_ii)                                                       \
  K32_R(op::kSelectAcc + 0, select_a) K32_R(op::kSelectAcc + 1, select_a_is)                 \
  K32_R(op::kSelectAcc + 2, select_a_si) K32_R(op::kSelectAcc + 3, select_a_ii)              \
  K32_FOR_EACH_COMPARE_INDEX(K32_REG_JMP_CMP)                                                \
  K32_FUSED_HANDLERS
// the compare-and-jump forms (ops.h) by compare index
#define K32_REG_JMP_CMP(i)                                                                   \
  K32_R(op::kJmpCmp + i, jc##i) K32_R(op::kJmpCmpI + i, jci##i) K32_R(op::kJmpCmpAI + i, jcai##i) \
  K32_R(op::kJmpCmpSA + i, jcsa##i)
// clang-format on

namespace k32 {
namespace wasm {

namespace {
#define K32_R(n, name) uint32_t(n),
constexpr uint32_t kHandlerOps[] = {K32_WASM_HANDLERS};
#undef K32_R
constexpr uint32_t kHandlerCount = sizeof kHandlerOps / sizeof kHandlerOps[0];
struct HandlerSlots {
  uint16_t of[op::kCount];  // opcode -> its entry in K32_WASM_HANDLERS (0: L_bad)
};
constexpr HandlerSlots make_handler_slots() {
  HandlerSlots t{};
  for (uint32_t i = 1; i < kHandlerCount; i++)
    if (kHandlerOps[i] < op::kCount) t.of[kHandlerOps[i]] = uint16_t(i);
  return t;
}
constexpr HandlerSlots kHandlerSlots = make_handler_slots();
// Every opcode listed is below kCount and has one handler (an opcode listed twice is a clash
// of the numbering in ops.h and fused.h).
constexpr bool handlers_distinct() {
  uint32_t listed = 0;
  for (uint32_t i = 1; i < kHandlerCount; i++) {
    if (kHandlerOps[i] >= op::kCount) return false;
    listed++;
  }
  uint32_t slots = 0;
  for (uint16_t e : kHandlerSlots.of) slots += e != 0;
  return listed == slots;
}
static_assert(handlers_distinct(), "two handlers for one opcode");
static_assert(kHandlerCount < 65536, "entries fit 16 bits");
}  // namespace

namespace {
// Rounding a signalling NaN must yield a quiet one (Wasm's "arithmetic NaN"); some libm
// implementations of ceil/floor/trunc return the NaN operand unchanged, so add it to itself.
template <typename F>
inline F quiet_round(F operand, F rounded) {
  return operand != operand ? operand + operand : rounded;
}

inline float f32(uint64_t v) {
  float f;
  uint32_t b = uint32_t(v);
  std::memcpy(&f, &b, 4);
  return f;
}
inline double f64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline uint64_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// min/max: NaN if either is NaN (a+b propagates it as an arithmetic NaN); -0 < +0.
inline uint64_t fmin32(uint64_t x, uint64_t y) {
  float a = f32(x), b = f32(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return (x | y) & 0xFFFFFFFFu;
  return a < b ? x : y;
}
inline uint64_t fmax32(uint64_t x, uint64_t y) {
  float a = f32(x), b = f32(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return x & y & 0xFFFFFFFFu;
  return a > b ? x : y;
}
inline uint64_t fmin64(uint64_t x, uint64_t y) {
  double a = f64(x), b = f64(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return x | y;
  return a < b ? x : y;
}
inline uint64_t fmax64(uint64_t x, uint64_t y) {
  double a = f64(x), b = f64(y);
  if (a != a || b != b) return bits(a + b);
  if (a == b) return x & y;
  return a > b ? x : y;
}

inline uint32_t rotl32(uint32_t x, uint32_t n) {
  n &= 31;
  return n ? (x << n) | (x >> (32 - n)) : x;
}
inline uint32_t rotr32(uint32_t x, uint32_t n) {
  n &= 31;
  return n ? (x >> n) | (x << (32 - n)) : x;
}
inline uint64_t rotl64(uint64_t x, uint64_t n) {
  n &= 63;
  return n ? (x << n) | (x >> (64 - n)) : x;
}
inline uint64_t rotr64(uint64_t x, uint64_t n) {
  n &= 63;
  return n ? (x >> n) | (x << (64 - n)) : x;
}

// Saturating truncation: NaN -> 0, out of range -> the bound.
template <class I, class F>
inline I sat(F x, F lo_excl, F hi_excl, I lo, I hi) {
  if (x != x) return 0;
  if (!(x > lo_excl)) return lo;
  if (!(x < hi_excl)) return hi;
  return I(x);
}

// The tick's slow path, out of line because every taken jump and call has a copy of the
// test: spends one unit of fuel (a negative fuel is no limit), or says why the run must stop
// (true, *stop set). Fuel and the stop reason go through pointers, and GCC may not turn them
// back into values (noipa): a value argument had GCC load and store the fuel around the tick
// test of every taken jump, on the fast path (1-3 % more instructions on the benchmark set).
constexpr int64_t kStopInterrupted = -2, kStopNoFuel = -3;
#if defined(__clang__)
#define K32_NOIPA
#else
#define K32_NOIPA __attribute__((noipa))
#endif
__attribute__((noinline)) K32_NOIPA bool tick_expired(const Store* s, int64_t* fuel, int64_t* stop) {
  if (s->interrupt.load(std::memory_order_relaxed)) {
    *stop = kStopInterrupted;
    return true;
  }
  if (*fuel < 0) return false;  // no fuel limit
  if (*fuel == 0) {
    *stop = kStopNoFuel;
    return true;
  }
  --*fuel;
  return false;
}

#ifdef K32_WASM_PROFILE
// Development aid (cmake -DK32_WASM_PROFILE=ON): counts executed instructions and pairs of
// consecutive ones by handler, printed at exit, to find what is worth fusing.
struct PairCount {
  int32_t a, b;
  uint64_t n;
};
PairCount prof_single[1 << 12];  // by handler word (b; a unused)
PairCount prof_pairs[1 << 16];
void profile_dump();
inline void count_in(PairCount* table, uint32_t mask, int32_t prev, int32_t cur) {
  uint32_t h = (uint32_t(prev) * 2654435761u ^ uint32_t(cur) * 40503u) & mask;
  for (;; h = (h + 1) & mask) {
    PairCount& pc = table[h];
    if (pc.n == 0) {
      pc.a = prev;
      pc.b = cur;
    }
    if (pc.a == prev && pc.b == cur) {
      pc.n++;
      return;
    }
  }
}
inline void profile_count(int32_t prev, int32_t cur) {
  static bool registered = (std::atexit(profile_dump), true);
  (void)registered;
  count_in(prof_single, (1 << 12) - 1, 0, cur);
  count_in(prof_pairs, (1 << 16) - 1, prev, cur);
}
#endif
}  // namespace

// What a handler run out of line reads and writes of execute()'s state (the `cold` block
// copies it in and back); `taken` reports a taken jump, which execute() then counts.
struct ColdState {
  Store* s;
  Instance* inst;
  uint8_t* mem;
  uint64_t memsize;
  uint64_t acc;
  Trap trap;
  bool taken;
};
// Runs cold handler `id` on the instruction whose operands start at pc; returns where the next
// instruction starts, or nullptr with cs->trap set. Kept out of execute() (noinline) so that
// the dispatch loop is only the hot handlers: small enough for the fast code memory.
__attribute__((noinline)) const uint32_t* exec_cold(uint32_t id, uint64_t* fp, const uint32_t* pc, ColdState* cs);

// The dispatch loop: every handler is a label of this one function, so it is the unit the
// port places in its fastest code memory (K32_FAST_CODE); slow paths live out of line.
K32_FAST_CODE Trap execute(Store* s, Func* f, const Value* args, Value* results) {
  // Called with f == nullptr by handler_words() to publish the handler addresses.
#if K32_WASM_ABSOLUTE_DISPATCH
  const char* const dispatch_base = nullptr;
#else
  const char* const dispatch_base = static_cast<const char*>(&&L_bad);
#endif
  if (!f) {
#define K32_R(n, name) &&L_##name,
    static const void* const handlers[] = {K32_WASM_HANDLERS};
#undef K32_R
    static_assert(sizeof handlers / sizeof handlers[0] == kHandlerCount, "one address per entry");
    for (const void* h : handlers) {
      intptr_t off = static_cast<const char*>(h) - dispatch_base;
      if (intptr_t(int32_t(off)) != off) {  // a build setting (code model), not a run-time condition
        std::fprintf(stderr, "k32 wasm: handler addresses do not fit 32 bits in this build\n");
        std::abort();
      }
    }
    results[0].bits = uint64_t(uintptr_t(handlers));
    return trap_ok();
  }

  Trap trap = trap_ok();
  // The handlers' base address, made opaque so that the compiler keeps it in a register
  // for the whole loop instead of rematerialising it in every handler's dispatch.
#if K32_WASM_ABSOLUTE_DISPATCH
#define HANDLER(off) reinterpret_cast<void*>(intptr_t(int32_t(off)))
#else
  const char* base_reg = dispatch_base;
  __asm__("" : "+r"(base_reg));
#define HANDLER(off) (base_reg + int32_t(off))
#endif
  const uint32_t np = f->type->nparams;
  const uint32_t nr = f->type->nresults;
  // Nested calls (a host function calling back into wasm) continue above the caller's use.
  uint64_t* const stack_base = s->stack + s->stack_used;
  uint64_t* const stack_end = s->stack + s->limits.value_stack_slots;
  const uint32_t depth_base = s->depth_used;
  const uint32_t max_depth = s->limits.call_depth;
  if (uint64_t(stack_end - stack_base) < uint64_t(np) + nr + 1 || depth_base + 1 >= max_depth)
    return trap_make(TrapCode::CallStackExhausted);
  for (uint32_t i = 0; i < np; i++) stack_base[i] = args[i].bits;

  // Frames in use are frames[depth_base, fsp); a call needs fsp < frames_end.
  Frame* fsp = s->frames + depth_base;
  Frame* const frames_end = s->frames + max_depth;
  int64_t fuel = s->fuel;
  // Taken jumps and calls count down `tick` (forward jumps too: telling them apart costs as
  // much as counting them); only when it reaches zero are the interrupt flag and the fuel
  // looked at. Without fuel that is every kTick events (a few
  // microseconds), with fuel every event, so fuel stays exact.
  constexpr uint32_t kTick = 64;
  uint32_t tick = fuel >= 0 ? 1 : kTick;
  int64_t stop = 0;  // why the tick stopped the run (tick_expired)
  uint64_t* fp = stack_base;
  const uint32_t* pc = nullptr;
  Instance* inst = nullptr;
  uint8_t* mem = nullptr;
  uint64_t memsize = 0;
  Func* callee = f;  // its frame records pc == nullptr: returning there ends the run
  uint32_t base = 0;
  uint64_t acc = 0;  // the accumulator (ops.h)
#if K32_FACC_XMM
  // The f64 operators' view of the accumulator, pinned to a vector register (see K32_FACC_XMM).
  register double facc asm("xmm15") = 0;
#endif
#if K32_WASM_SPLIT
  uint32_t cold_id = 0;  // which out-of-line handler the `cold` block runs (exec_ops.inc)
#endif

#if defined(K32_WASM_SINGLE_DISPATCH)
// One shared dispatch point (the fuzzing build): every handler jumps there. Same behaviour,
// but a control-flow graph of handlers + jumps instead of handlers x jumps, which keeps
// instrumenting compilers (ASan, coverage) from taking many minutes over this function.
#define NEXT() goto dispatch
#define NEXT_AT(n) \
  do { \
    pc += (n); \
    goto dispatch; \
  } while (0)
#elif defined(K32_WASM_PROFILE)
#define NEXT() \
  do { \
    profile_count(prof_prev, int32_t(*pc)); \
    prof_prev = int32_t(*pc); \
    goto* HANDLER(*pc++); \
  } while (0)
#define NEXT_AT(n) \
  do { \
    pc += (n); \
    NEXT(); \
  } while (0)
  int32_t prof_prev = 0;
#else
#define NEXT() goto* HANDLER(*pc++)
// Moves past an instruction of n operand words and dispatches the next one.
#define NEXT_AT(n) \
  do { \
    int32_t o_ = int32_t(pc[n]); \
    pc += (n) + 1; \
    goto* HANDLER(o_); \
  } while (0)
#endif
#define S(i) fp[pc[i]]
#define TRAP(c, msg) \
  do { \
    trap = trap_make(TrapCode::c, msg); \
    goto done; \
  } while (0)
#define BUDGET() \
  do { \
    if (__builtin_expect(--tick == 0, 0)) { \
      if (tick_expired(s, &fuel, &stop)) goto tick_stop; \
      tick = fuel >= 0 ? 1 : kTick; \
    } \
  } while (0)
#define RELOAD() \
  do { \
    if (inst && inst->memory) { \
      mem = inst->memory->data; \
      memsize = inst->memory->bytes; \
    } else { \
      mem = nullptr; \
      memsize = 0; \
    } \
  } while (0)
#define U32(x) uint32_t(x)
#define I32(x) int32_t(uint32_t(x))
#define I64(x) int64_t(x)
// The i32 compares in ops.h order (kJmpCmp + index): index, operand type, operator.
// Kept out of clang-format: ten compare forms, five a line.
// clang-format off
#define FOR_EACH_COMPARE(M)                                                                  \
  M(0, uint32_t, ==) M(1, uint32_t, !=) M(2, int32_t, <) M(3, uint32_t, <) M(4, int32_t, >) \
  M(5, uint32_t, >) M(6, int32_t, <=) M(7, uint32_t, <=) M(8, int32_t, >=) M(9, uint32_t, >=)
// clang-format on
// Operand sources and result sinks of the accumulator variants (see ops.h).
#define SRC_S(i) fp[pc[i]]
#define SRC_A(i) acc
#define IMM32(i) uint64_t(pc[i])
#define IMM64(i) uint64_t(int64_t(int32_t(pc[i])))
#define DST_S(v) fp[pc[2]] = acc = (v)  // the accumulator mirrors the result (ops.h)
#define DST_A(v) acc = (v)
// One binary handler: a = CV(source A), b = CV(source B), result RES(expr) to the sink.
#define BINH(label, SA, SB, DST, CV, RES, expr) \
  K32_HANDLER(label, { \
    auto a = CV(SA(0)); \
    auto b = CV(SB(1)); \
    DST(RES(expr)); \
    NEXT_AT(3); \
  })
#define RES32(x) uint64_t(uint32_t(x))
#define RES64(x) uint64_t(x)
#define RESF(x) (x)
#define ID64(x) uint64_t(x)
// Every variant of a binary operator with an immediate form (IMM: its immediate source).
#define BINALL(name, CV, RES, IMM, expr) \
  BINH(name, SRC_S, SRC_S, DST_S, CV, RES, expr) \
  BINH(name##_i, SRC_S, IMM, DST_S, CV, RES, expr) \
  BINH(name##_v0, SRC_S, SRC_S, DST_A, CV, RES, expr) \
  BINH(name##_v1, SRC_S, IMM, DST_A, CV, RES, expr) \
  BINH(name##_v2, SRC_A, SRC_S, DST_S, CV, RES, expr) \
  BINH(name##_v3, SRC_A, SRC_S, DST_A, CV, RES, expr) \
  BINH(name##_v4, SRC_A, IMM, DST_S, CV, RES, expr) \
  BINH(name##_v5, SRC_A, IMM, DST_A, CV, RES, expr) \
  BINH(name##_v6, SRC_S, SRC_A, DST_S, CV, RES, expr) \
  BINH(name##_v7, SRC_S, SRC_A, DST_A, CV, RES, expr)
// Float immediates are f32 bits; an f64 one is an f32 widened exactly (ops.h).
#define IMMF32(i) uint64_t(pc[i])
#define IMMF64(i) bits(double(f32(pc[i])))
#define BIN32(name, expr) BINALL(name, U32, RES32, IMM32, expr)
#define BIN64I(name, expr) \
  BINH(name, SRC_S, SRC_S, DST_S, ID64, RES64, expr) \
  BINH(name##_i, SRC_S, IMM64, DST_S, ID64, RES64, expr)
#define BINF32A(name, expr) BINALL(name, f32, RESF, IMMF32, expr)
// The f64 operators take an operand handed over in the accumulator from `facc` where that
// is a vector register (K32_FACC_XMM, ops.h). They write `acc` too, for the accumulator's
// other readers (returns, narrower stores). An 8-byte load (`f64.load` runs as `i64.load`)
// writes `facc` instead of `acc`, and an 8-byte store takes its value from `facc`: the
// compiler hands an f64 operator or an 8-byte store only those two producers' values, and
// never an 8-byte load's to another reader (compile_fused.inc: take_acc).
#if K32_FACC_XMM
#define SRC_AF(i) bits(facc)
#define DST_AF(v) (acc = (v), facc = f64(acc))
#define DST_SF(v) (fp[pc[2]] = acc = (v), facc = f64(acc))
#define LD_S64(i, v) (facc = f64(fp[pc[i]] = (v)))
#define LD_A64(i, v) (facc = f64(v))
#define ACC64 bits(facc)
#else
#define SRC_AF SRC_A
#define DST_AF DST_A
#define DST_SF DST_S
#define LD_S64 LD_S
#define LD_A64 LD_A
#define ACC64 acc
#endif
#define BINF64A(name, expr) \
  BINH(name, SRC_S, SRC_S, DST_SF, f64, RESF, expr) \
  BINH(name##_i, SRC_S, IMMF64, DST_SF, f64, RESF, expr) \
  BINH(name##_v0, SRC_S, SRC_S, DST_AF, f64, RESF, expr) \
  BINH(name##_v1, SRC_S, IMMF64, DST_AF, f64, RESF, expr) \
  BINH(name##_v2, SRC_AF, SRC_S, DST_SF, f64, RESF, expr) \
  BINH(name##_v3, SRC_AF, SRC_S, DST_AF, f64, RESF, expr) \
  BINH(name##_v4, SRC_AF, IMMF64, DST_SF, f64, RESF, expr) \
  BINH(name##_v5, SRC_AF, IMMF64, DST_AF, f64, RESF, expr) \
  BINH(name##_v6, SRC_S, SRC_AF, DST_SF, f64, RESF, expr) \
  BINH(name##_v7, SRC_S, SRC_AF, DST_AF, f64, RESF, expr)
#define JCMPH(label, SA, SB, T, cmp) \
  K32_HANDLER(label, { \
    if (T(SA(0)) cmp T(SB(1))) { \
      JUMP(pc + 2); \
      NEXT(); \
    } \
    NEXT_AT(3); \
  })
#define JCMP(idx, T, cmp) \
  JCMPH(jc##idx, SRC_S, SRC_S, T, cmp) \
  JCMPH(jci##idx, SRC_S, IMM32, T, cmp) \
  JCMPH(jcai##idx, SRC_A, IMM32, T, cmp) \
  JCMPH(jcsa##idx, SRC_S, SRC_A, T, cmp)
#define BIN64(name, expr) \
  K32_HANDLER(name, { \
    uint64_t a = S(0); \
    uint64_t b = S(1); \
    S(2) = uint64_t(expr); \
    NEXT_AT(3); \
  })
#define BINF32(name, expr) \
  K32_HANDLER(name, { \
    float a = f32(S(0)); \
    float b = f32(S(1)); \
    S(2) = (expr); \
    NEXT_AT(3); \
  })
#define BINF64(name, expr) \
  K32_HANDLER(name, { \
    double a = f64(S(0)); \
    double b = f64(S(1)); \
    S(2) = (expr); \
    NEXT_AT(3); \
  })
// Float compares: from slots, or against a constant (IMMF32/IMMF64: `x < 0.0f`, `y > 100.0`).
#define BINF32C(name, expr) \
  BINF32(name, expr) \
  K32_HANDLER(name##_i, { \
    float a = f32(S(0)); \
    float b = f32(IMMF32(1)); \
    S(2) = (expr); \
    NEXT_AT(3); \
  })
#define BINF64C(name, expr) \
  BINF64(name, expr) \
  K32_HANDLER(name##_i, { \
    double a = f64(S(0)); \
    double b = f64(IMMF64(1)); \
    S(2) = (expr); \
    NEXT_AT(3); \
  })
#define UN(name, expr) \
  K32_HANDLER(name, { \
    uint64_t a = S(0); \
    S(1) = (expr); \
    NEXT_AT(2); \
  })
// Loads and stores: effective address forms base (slot + offset), wrap (x + k, at 2^32) and
// abs (a constant), each with accumulator variants (ops.h).
#define EA_BASE(x) (uint64_t(U32(x)) + pc[1])
#define EA_WRAP(x) uint64_t(uint32_t(U32(x) + pc[1]))
#define LOADH(label, EA, DST, dst_word, T, conv, words) \
  K32_HANDLER(label, { \
    uint64_t ea = EA; \
    if (ea + sizeof(T) > memsize) goto trap_oob; \
    T v; \
    std::memcpy(&v, mem + ea, sizeof(T)); \
    DST(dst_word, (conv)); \
    NEXT_AT(words); \
  })
#define LD_S(i, v) fp[pc[i]] = acc = (v)
#define LD_A(i, v) acc = (v)
#define LOADALL(name, T, conv, LS, LA) \
  LOADH(name, EA_BASE(S(0)), LS, 2, T, conv, 3) \
  LOADH(name##_a, uint64_t(pc[0]), LS, 1, T, conv, 2) \
  LOADH(name##_w, EA_WRAP(S(0)), LS, 2, T, conv, 3) \
  LOADH(name##_bas, EA_BASE(acc), LS, 2, T, conv, 3) \
  LOADH(name##_bsa, EA_BASE(S(0)), LA, 2, T, conv, 3) \
  LOADH(name##_baa, EA_BASE(acc), LA, 2, T, conv, 3) \
  LOADH(name##_was, EA_WRAP(acc), LS, 2, T, conv, 3) \
  LOADH(name##_wsa, EA_WRAP(S(0)), LA, 2, T, conv, 3) \
  LOADH(name##_waa, EA_WRAP(acc), LA, 2, T, conv, 3)
#define LOAD(name, T, conv) LOADALL(name, T, conv, LD_S, LD_A)
#define STOREH(label, EA, VAL, T, words) \
  K32_HANDLER(label, { \
    uint64_t ea = EA; \
    if (ea + sizeof(T) > memsize) goto trap_oob; \
    T v = T(VAL); \
    std::memcpy(mem + ea, &v, sizeof(T)); \
    NEXT_AT(words); \
  })
#define EA_BASE2(x) (uint64_t(U32(x)) + pc[2])
#define EA_WRAP2(x) uint64_t(uint32_t(U32(x) + pc[2]))
#define STOREALL(name, T, VA) \
  STOREH(name, EA_BASE2(S(0)), S(1), T, 3) \
  STOREH(name##_a, uint64_t(pc[1]), S(0), T, 2) \
  STOREH(name##_w, EA_WRAP2(S(0)), S(1), T, 3) \
  STOREH(name##_bv, EA_BASE2(S(0)), VA, T, 3) \
  STOREH(name##_wv, EA_WRAP2(S(0)), VA, T, 3) \
  STOREH(name##_waddr, EA_WRAP2(acc), S(1), T, 3) \
  STOREH(name##_av, uint64_t(pc[1]), VA, T, 2)
#define STORE64(name, T) STOREALL(name, T, acc)
// … and with the value a constant carried by the instruction (stores up to 4 bytes)
#define STORE(name, T) \
  STORE64(name, T) \
  STOREH(name##_ib, EA_BASE2(S(0)), pc[1], T, 3) \
  STOREH(name##_iw, EA_WRAP2(S(0)), pc[1], T, 3) \
  STOREH(name##_ia, uint64_t(pc[1]), pc[0], T, 2)
#define JUMP(at) \
  do { \
    const uint32_t* t_ = (at) + int32_t(*(at)); \
    BUDGET(); \
    pc = t_; \
  } while (0)
#define MOVE(keep, from, to) \
  do { \
    uint64_t* d_ = fp + (to); \
    const uint64_t* s_ = fp + (from); \
    for (uint32_t k_ = 0, n_ = (keep); k_ < n_; k_++) d_[k_] = s_[k_]; \
  } while (0)

// an add-immediate's sum (fused.h: kAddX, kAddK), the first part of the add-* pairs
#define ADD_I() uint32_t(U32(S(op::kAddX)) + pc[op::kAddK])
// The handlers of exec_ops.inc: a hot one is a label and its body; a cold one a label whose
// stub hands its number to exec_cold() (the `cold` block below). The body of a cold one is
// compiled only into exec_cold().
#define K32_HANDLER_1(label, ...) \
  L_##label : { \
    (void)__COUNTER__; \
    __VA_ARGS__ \
  }
#define K32_HANDLER_0(label, ...) \
  L_##label : { \
    cold_id = uint32_t(__COUNTER__ - kColdBase); \
    goto cold; \
  }

  goto do_call;

#if defined(K32_WASM_SINGLE_DISPATCH)
dispatch:
  goto* HANDLER(*pc++);
#endif
L_bad:
  TRAP(HostError, "internal error: bad opcode");
// [n, (src, dst) x n]: the copies in order; pc ends past them
#define COPY_RUN() \
  do { \
    uint32_t n_ = *pc++; \
    do { \
      S(1) = S(0); \
      pc += 2; \
    } while (--n_); \
  } while (0)
L_copyn:
  COPY_RUN();
  NEXT();
L_copyn_jmp:
  COPY_RUN();
  JUMP(pc);
  NEXT();
// an add-immediate, then copies or a call: the handler continues in the one of the second part
L_add_copyn:
  S(op::kAddSum) = ADD_I();
  if (pc[op::kAddEnd + op::kCopyCount] == 1) {  // the usual case: `p = p + 4; q = p`
    S(op::kAddEnd + op::kCopyFirst + 1) = S(op::kAddEnd + op::kCopyFirst);
    NEXT_AT(op::kAddEnd + op::kCopyFirst + 2);
  }
  pc += op::kAddEnd;
  goto L_copyn;
L_add_copyn_jmp:
  S(op::kAddSum) = ADD_I();
  pc += op::kAddEnd;
  goto L_copyn_jmp;
L_add_call_direct:
  S(op::kAddSum) = ADD_I();
  pc += op::kAddEnd;
  goto L_call_direct;
L_jmp:
  JUMP(pc);
  NEXT();
L_const_jmp:  // [dst, bits, target]
  S(0) = pc[1];
  JUMP(pc + 2);
  NEXT();
L_jmp_if:
  if (U32(S(0))) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_jmp_unless:
  if (!U32(S(0))) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_jmp_if_a:
  if (U32(acc)) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_jmp_unless_a:
  if (!U32(acc)) {
    JUMP(pc + 1);
    NEXT();
  }
  NEXT_AT(2);
L_br_if:
  if (!U32(S(0))) { NEXT_AT(5); }
  pc++;
  // fallthrough
L_br:
  MOVE(pc[1], pc[2], pc[3]);
  JUMP(pc);
  NEXT();
L_br_table:
  acc = S(0);  // the index from its slot; the accumulator is free (nothing reads it after a branch)
  // fallthrough
L_br_table_a : {
  uint32_t n = pc[1];
  uint32_t i = U32(acc);
  if (i > n) i = n;
  const uint32_t* e = pc + 2 + 4 * i;
  MOVE(e[1], e[2], e[3]);
  JUMP(e);
  NEXT();
}

L_ret1:
  fp[0] = S(1);
  goto pop_frame;
L_ret1_a:
  fp[0] = acc;
  goto pop_frame;
L_ret:
  MOVE(pc[0], pc[1], 0);
pop_frame : {
  const Frame& fr = *--fsp;
  pc = fr.pc;
  fp = fr.fp;
  if (!pc) goto done;
  // Memory can only have moved under us if another instance ran (memory.grow in this
  // instance reloads at once; host functions reload after returning).
  if (fr.inst != inst) {
    inst = fr.inst;
    RELOAD();
  }
  NEXT();
}

L_call_direct : {
  // the callee's entry is relative to this word; its frame shape sits in the words before
  // it (FuncCode), so a call touches no Func
  const uint32_t* e = pc + int32_t(pc[0]);
  const uint32_t* h = e - kFuncHeaderWords;
  uint64_t* nfp = fp + pc[1];
  if (__builtin_expect(fsp == frames_end || uint64_t(stack_end - nfp) < h[kHeadSlots], 0)) TRAP(CallStackExhausted, nullptr);
  BUDGET();
  *fsp++ = Frame{pc + 2, fp, inst};
  for (uint32_t i = h[kHeadParams], n = h[kHeadLocals]; i < n; i++) nfp[i] = 0;
  fp = nfp;
  pc = e;
  NEXT();
}
L_call:
  callee = inst->funcs[pc[0]];
  base = pc[1];
  pc += 2;
  goto do_call;
L_call_indirect : {
  uint32_t ti = pc[0];
  Table* t = inst->tables[pc[1]];
  uint32_t i = U32(S(2));
  base = pc[3];
  pc += 4;
  if (i >= t->size) TRAP(TableOutOfBounds, "undefined element");
  callee = reinterpret_cast<Func*>(uintptr_t(t->elems[i]));
  if (!callee) TRAP(UninitializedElement, nullptr);
  const FuncType& want = inst->module->types[ti];
  if (callee->type != &want && !same_type(*callee->type, want)) TRAP(IndirectCallTypeMismatch, nullptr);
  goto do_call;
}

do_call : {
  const uint32_t cnp = callee->type->nparams;
  uint64_t* nfp = fp + base;
  if (!callee->inst) {  // host function: args copied above so results may overwrite them
    const uint32_t cnr = callee->type->nresults;
    uint64_t* tmp = nfp + (cnr > cnp ? cnr : cnp);
    if (tmp + cnp > stack_end) TRAP(CallStackExhausted, nullptr);
    for (uint32_t i = 0; i < cnp; i++) tmp[i] = nfp[i];
    s->fuel = fuel;
    uint32_t saved_used = s->stack_used, saved_depth = s->depth_used;
    s->stack_used = uint32_t(tmp + cnp - s->stack);
    s->depth_used = uint32_t(fsp - s->frames);
    Caller c{s, inst};
    Trap t = callee->host(c, reinterpret_cast<Value*>(tmp), reinterpret_cast<Value*>(nfp), callee->user);
    s->stack_used = saved_used;
    s->depth_used = saved_depth;
    fuel = s->fuel;
    if (fuel >= 0) tick = 1;
    if (!t.ok()) {
      trap = t;
      goto done;
    }
    if (!pc) goto done;  // the entry function itself was a host function
    RELOAD();
    NEXT();
  }
  if (fsp == frames_end || uint64_t(stack_end - nfp) < callee->frame_slots) TRAP(CallStackExhausted, nullptr);
  BUDGET();
  *fsp++ = Frame{pc, fp, inst};
  for (uint32_t i = cnp, n = callee->nlocals; i < n; i++) nfp[i] = 0;
  fp = nfp;
  if (callee->inst != inst) {
    inst = callee->inst;
    RELOAD();
  }
  pc = callee->entry;
  NEXT();
}

#include "exec_ops.inc"

#if K32_WASM_SPLIT
cold : {  // a handler not in exec_hot.h: its body runs out of line, then dispatch goes on here
  ColdState cs{s, inst, mem, memsize, acc, trap_ok(), false};
  const uint32_t* next = exec_cold(cold_id, fp, pc, &cs);
  if (!next) {
    trap = cs.trap;
    goto done;
  }
  acc = cs.acc;
  pc = next;
  if (cs.taken) BUDGET();  // it took a jump
  RELOAD();                // memory.grow may have moved the memory
  NEXT();
}
#endif

trap_oob:  // one shared trap site: the bounds checks are in hundreds of handlers
  TRAP(MemoryOutOfBounds, nullptr);
tick_stop:
  if (stop == kStopInterrupted) TRAP(Interrupted, nullptr);
  TRAP(OutOfFuel, nullptr);
done:
  s->fuel = trap.code == TrapCode::OutOfFuel ? 0 : fuel;
  if (trap.ok())
    for (uint32_t i = 0; i < nr; i++) results[i].bits = stack_base[i];
  return trap;
#undef NEXT
#undef S
#undef TRAP
#undef BUDGET
#undef JUMP
#undef RELOAD
#undef K32_HANDLER_0
#undef K32_HANDLER_1
}

#if K32_WASM_SPLIT
// The cold handlers of exec_ops.inc as the cases of one switch, with the macros their bodies
// use redefined for a function: continuing returns the next instruction, a trap returns
// nullptr, a taken jump sets cs->taken (the hot handlers' numbers are skipped, not cases).
const uint32_t* exec_cold(uint32_t id, uint64_t* fp, const uint32_t* pc, ColdState* cs) {
  Store* const s = cs->s;
  Instance* const inst = cs->inst;
  uint8_t* const mem = cs->mem;
  const uint64_t memsize = cs->memsize;
  uint64_t& acc = cs->acc;
  (void)s;
#undef NEXT_AT
#define S(i) fp[pc[i]]
#define NEXT() return pc
#define NEXT_AT(n) return pc + (n)
#define TRAP(c, msg) \
  do { \
    cs->trap = trap_make(TrapCode::c, msg); \
    return nullptr; \
  } while (0)
#define JUMP(at) \
  do { \
    pc = (at) + int32_t(*(at)); \
    cs->taken = true; \
  } while (0)
#define RELOAD() \
  do { \
  } while (0)
#define K32_HANDLER_1(label, ...) static_assert(__COUNTER__ >= 0, "hot: its body is in execute()");
#define K32_HANDLER_0(label, ...) \
  case __COUNTER__ - kColdBase: { \
    __VA_ARGS__ \
  }
  switch (id) {
#include "exec_ops.inc"
    default: break;
  }
  TRAP(HostError, "internal error: bad cold handler");
trap_oob:
  TRAP(MemoryOutOfBounds, nullptr);
#undef NEXT
#undef NEXT_AT
#undef S
#undef TRAP
#undef JUMP
#undef RELOAD
#undef K32_HANDLER_0
#undef K32_HANDLER_1
}
#endif  // K32_WASM_SPLIT

#ifdef K32_WASM_PROFILE
namespace {
#define K32_R(n, name) #name,
const char* const kHandlerNames[] = {K32_WASM_HANDLERS};
#undef K32_R
// The handler's label (its first entry in K32_WASM_HANDLERS) and opcode.
const char* op_of(int32_t off) {
  const HandlerWords t = handler_words();
  for (uint32_t i = 0; i < kHandlerCount; i++)
    if (kHandlerOps[i] < op::kCount && t[kHandlerOps[i]] == off) return kHandlerNames[i];
  return "?";
}
void profile_dump() {
  uint64_t total = 0;
  for (const PairCount& p : prof_single) total += p.n;
  std::fprintf(stderr, "profile: %llu instructions\n", (unsigned long long)total);
  for (;;) {  // every instruction seen, so that a test can show each variant it reaches
    PairCount* best = nullptr;
    for (PairCount& p : prof_single)
      if (p.n && (!best || p.n > best->n)) best = &p;
    if (!best) break;
    std::fprintf(stderr, "  op %-16s %6.2f%%\n", op_of(best->b), 100.0 * best->n / total);
    best->n = 0;
  }
  for (int k = 0; k < 40; k++) {
    PairCount* best = nullptr;
    for (PairCount& p : prof_pairs)
      if (p.n && (!best || p.n > best->n)) best = &p;
    if (!best) break;
    std::fprintf(stderr, "  pair %-16s %-16s %6.2f%%\n", op_of(best->a), op_of(best->b), 100.0 * best->n / total);
    best->n = 0;
  }
}
}  // namespace
#endif

HandlerWords handler_words() {
  Value out{0};
  execute(nullptr, nullptr, nullptr, &out);
  return HandlerWords{reinterpret_cast<const void* const*>(uintptr_t(out.bits))};
}

int32_t HandlerWords::operator[](uint32_t o) const {
  const char* h = static_cast<const char*>(addrs[o < op::kCount ? kHandlerSlots.of[o] : 0]);
#if K32_WASM_ABSOLUTE_DISPATCH
  return int32_t(intptr_t(h));
#else
  return int32_t(h - static_cast<const char*>(addrs[0]));
#endif
}

}  // namespace wasm
}  // namespace k32
