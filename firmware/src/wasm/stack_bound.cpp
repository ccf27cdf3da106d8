// The module's worst-case value stack and call depth over its call graph (wasm.h:
// module_stack_bound), computed once at load from what validation already knows: each
// function's locals and maximum operand height, and the slot where each call's arguments
// start. It mirrors the executor's checks (exec.cpp), which reserve a callee's whole frame at
// the call: a wasm callee needs `frame_slots` from its first argument on, a host callee
// max(params, results) + params (its arguments are copied above the results), and the entry
// call params + results + 1.
//
// One iterative depth-first walk (no recursion: a module's call chains must not reach the
// native stack of the loading thread), over the defined functions plus one node per type
// called indirectly, whose callees are the functions of that type a table of the module can
// come to hold: those its element segments, globals and ref.func instructions name.
#include <cstdio>

#include "internal.h"
#include "opcodes.h"

namespace k32 {
namespace wasm {

namespace {

constexpr uint8_t kOnPath = 1, kDone = 2;  // a node's state; 0: not reached yet (the block starts zeroed)

struct Walk {
  Module* m;
  uint8_t* tabled;  // per function: a table may come to hold it
  uint32_t ndef;
  uint32_t* first;  // ndef + 1: where each defined function's call sites start (triples)
  uint64_t* slots;  // per node: defined functions, then types called indirectly
  uint32_t* frames;
  uint8_t* state;
  struct Step {
    uint32_t node, cursor;
  } * path;
  uint64_t* pending_base;  // per path entry: the base of the call it is making
  uint32_t depth = 0;

  uint32_t nfuncs() const { return m->func_types.n; }
  const FuncType& type_of(uint32_t f) const { return m->types[m->func_types[f]]; }
  // An imported function is taken as a host function: a leaf that takes no frame.
  static uint64_t host_slots(const FuncType& t) { return uint64_t(t.nparams > t.nresults ? t.nparams : t.nresults) + t.nparams; }

  // Marks the module unbounded; the first reason found is the one kept.
  char* unbounded() {
    StackBound& sb = m->stack_bound;
    if (!sb.bounded) return nullptr;
    sb.bounded = false;
    return sb.why;
  }

  // The next callee of the node on top of the path: true with *callee (a function index),
  // *base (slot of its first argument); false when the node has no more.
  bool next_callee(Step& st, uint32_t* callee, uint64_t* base) {
    if (st.node < ndef) {
      while (first[st.node] + st.cursor < first[st.node + 1]) {
        const uint32_t* site = m->call_sites.p + first[st.node] + st.cursor;
        st.cursor += 3;
        if (site[1] & kCallSiteRef) continue;  // not a call
        *callee = site[1];
        *base = site[2];
        return true;
      }
      return false;
    }
    const FuncType& want = m->types[st.node - ndef];
    while (st.cursor < nfuncs()) {
      uint32_t g = st.cursor++;
      if (tabled[g] && same_type(type_of(g), want)) {
        *callee = g;
        *base = 0;
        return true;
      }
    }
    return false;
  }

  // A callee's node, or kNoMax for an imported function (a leaf).
  uint32_t node_of(uint32_t callee) const {
    if (callee & kCallSiteIndirect) return ndef + (callee & ~kCallSiteIndirect);
    return callee < m->nfunc_imports ? kNoMax : callee - m->nfunc_imports;
  }

  void start(uint32_t node) {
    state[node] = kOnPath;
    const FuncCode* fc = node < ndef ? &m->funcs[node] : nullptr;
    slots[node] = fc ? uint64_t(fc->nlocals) + fc->max_height : 0;
    frames[node] = fc ? 1 : 0;
    path[depth++] = Step{node, 0};
  }

  // Walks from `root` (a defined function or a type node); false once unbounded.
  bool visit(uint32_t root) {
    if (state[root] == kDone) return true;
    start(root);
    while (depth) {
      Step& st = path[depth - 1];
      uint32_t callee;
      uint64_t base;
      if (!next_callee(st, &callee, &base)) {
        state[st.node] = kDone;
        depth--;
        if (depth) {  // fold into the caller (its call site's base was added when it was taken)
          Step& up = path[depth - 1];
          uint64_t need = slots[st.node] + pending_base[depth - 1];
          if (need > slots[up.node]) slots[up.node] = need;
          uint32_t fr = frames[st.node] + (up.node < ndef ? 1 : 0);
          if (fr > frames[up.node]) frames[up.node] = fr;
        }
        continue;
      }
      uint32_t n = node_of(callee);
      if (n == kNoMax) {  // host function: a leaf
        uint64_t need = base + host_slots(type_of(callee));
        if (need > slots[st.node]) slots[st.node] = need;
        continue;
      }
      if (state[n] == kOnPath) {
        if (char* why = unbounded()) {
          if (n >= ndef)
            std::snprintf(why, sizeof m->stack_bound.why, "a call_indirect of type %u reaches itself (recursion)",
                          unsigned(n - ndef));
          else
            std::snprintf(why, sizeof m->stack_bound.why, "function %u %s (recursion)", unsigned(m->nfunc_imports + n),
                          n == st.node ? "calls itself" : "is reached again from its own calls");
        }
        return false;
      }
      if (state[n] == kDone) {
        uint64_t need = base + slots[n];
        if (need > slots[st.node]) slots[st.node] = need;
        uint32_t fr = frames[n] + (st.node < ndef ? 1 : 0);
        if (fr > frames[st.node]) frames[st.node] = fr;
        continue;
      }
      pending_base[depth - 1] = base;
      start(n);
    }
    return true;
  }
};

}  // namespace

bool compute_stack_bound(Module* m) {
  StackBound& sb = m->stack_bound;
  sb = StackBound{true, 0, 0, {0}};
  const Allocator& a = m->alloc;
  const uint32_t ndef = m->funcs.n, ntypes = m->types.n, nodes = ndef + ntypes;
  // One block for the walk, released before returning.
  const uint32_t nfuncs = m->func_types.n;
  size_t bytes = size_t(ndef + 1) * 4 + size_t(nodes) * (8 + 4 + 1 + sizeof(Walk::Step) + 8) + nfuncs + 16;
  uint8_t* block = static_cast<uint8_t*>(a.alloc(a.ctx, bytes));
  if (!block) {
    m->call_sites.release(a);
    return false;
  }
  std::memset(block, 0, bytes);
  Walk w{};
  w.m = m;
  w.ndef = ndef;
  uint8_t* p = block;
  w.slots = reinterpret_cast<uint64_t*>(p), p += size_t(nodes) * 8;
  w.pending_base = reinterpret_cast<uint64_t*>(p), p += size_t(nodes) * 8;
  w.path = reinterpret_cast<Walk::Step*>(p), p += size_t(nodes) * sizeof(Walk::Step);
  w.first = reinterpret_cast<uint32_t*>(p), p += size_t(ndef + 1) * 4;
  w.frames = reinterpret_cast<uint32_t*>(p), p += size_t(nodes) * 4;
  w.state = p, p += nodes;
  w.tabled = p;
  // Call sites come in body order, so each caller's are one run.
  for (uint32_t i = 0, f = 0; f <= ndef; f++) {
    while (i < m->call_sites.n && m->call_sites[i] < f) i += 3;
    w.first[f] = i;
  }
  // What the module's tables can hold: functions its element segments, globals and bodies
  // name. A table the embedder or another module can fill, or a function reference from
  // outside (an imported global, an import's result), may hold any function.
  bool open_table = m->ntable_imports > 0;
  for (uint32_t i = 0; i < m->exports.n; i++) open_table |= m->exports[i].kind == ExternKind::Table;
  auto mark = [&](const ConstExpr& e) {
    if (e.op == opc::kRefFunc && e.value < nfuncs) w.tabled[e.value] = 1;
    if (e.op == opc::kGlobalGet && e.value < m->nglobal_imports) open_table = true;
  };
  for (uint32_t i = 0; i < m->elem_items.n; i++) mark(m->elem_items[i]);
  for (uint32_t i = 0; i < m->globals.n; i++) mark(m->globals[i].init);
  for (uint32_t i = 0; i < m->call_sites.n; i += 3)
    if (m->call_sites[i + 1] & kCallSiteRef) w.tabled[m->call_sites[i + 1] & ~kCallSiteRef] = 1;
  for (uint32_t f = 0; f < m->nfunc_imports; f++) {
    const FuncType& t = w.type_of(f);
    for (uint32_t k = 0; k < t.nresults; k++) open_table |= t.results()[k] == ValType::FuncRef;
  }
  for (uint32_t i = 0; open_table && i < m->call_sites.n; i += 3)
    if (m->call_sites[i + 1] & kCallSiteIndirect) {
      std::snprintf(w.unbounded(), sizeof sb.why, "function %u calls through a shared table (imported or exported)",
                    unsigned(m->nfunc_imports + m->call_sites[i]));
      break;
    }

  // The entries: every exported function and the start function.
  uint64_t need = 0;
  uint32_t depth = 0;
  auto entry = [&](uint32_t f) {
    const FuncType& t = w.type_of(f);
    uint64_t n = uint64_t(t.nparams) + t.nresults + 1;  // execute()'s own check
    uint32_t fr = 0;
    if (f < m->nfunc_imports) {
      uint64_t h = Walk::host_slots(t);
      if (h > n) n = h;
    } else if (sb.bounded && w.visit(f - m->nfunc_imports)) {
      uint32_t node = f - m->nfunc_imports;
      if (w.slots[node] > n) n = w.slots[node];
      fr = w.frames[node];
    }
    if (n > need) need = n;
    if (fr > depth) depth = fr;
  };
  for (uint32_t i = 0; i < m->exports.n && sb.bounded; i++)
    if (m->exports[i].kind == ExternKind::Func) entry(m->exports[i].index);
  if (m->start >= 0 && sb.bounded) entry(uint32_t(m->start));
  if (sb.bounded) {
    sb.slots = need > 0xFFFFFFFFu ? 0xFFFFFFFFu : uint32_t(need);
    // execute() refuses to start below two frames (exec.cpp: depth_base + 1 >= max_depth)
    sb.frames = depth < 2 ? 2 : depth;
  }
  a.free(a.ctx, block);
  m->call_sites.release(a);
  return true;
}

const StackBound& module_stack_bound(const Module* m) { return m->stack_bound; }

}  // namespace wasm
}  // namespace k32
