// The WASI preview1 subset pods get: args, environ, stdout/stderr, clocks, random, exit.
// Everything else a C program touches at startup answers with a proper errno, so programs
// built with clang --target=wasm32-wasi run unchanged.
#include "internal.h"

namespace k32 {
namespace wasm {

namespace {

// WASI errno values (wasi_snapshot_preview1)
constexpr uint32_t kSuccess = 0, kBadf = 8, kFault = 21, kInval = 28, kNosys = 52, kSpipe = 70;

// A function defined for one store carries its config; one shared by many stores (user null)
// reads the calling store's (wasi_attach).
const WasiConfig& cfg_of(const Caller& c, void* user) { return *static_cast<const WasiConfig*>(user ? user : c.store->wasi); }
Trap ret(Value* r, uint32_t errno_value) {
  r[0].bits = errno_value;
  return trap_ok();
}
bool put32(Caller& c, uint32_t addr, uint32_t v) { return c.write(addr, &v, 4); }
bool put64(Caller& c, uint32_t addr, uint64_t v) { return c.write(addr, &v, 8); }

// Shared by args_* and environ_*: a vector of C strings laid out as pointers + buffer.
Trap strings_get(Caller& c, const Value* a, Value* r, int n, const char* const* v) {
  uint32_t ptrs = uint32_t(a[0].bits), buf = uint32_t(a[1].bits);
  for (int i = 0; i < n; i++) {
    uint32_t len = uint32_t(std::strlen(v[i])) + 1;
    if (!put32(c, ptrs + 4 * uint32_t(i), buf) || !c.write(buf, v[i], len)) return ret(r, kFault);
    buf += len;
  }
  return ret(r, kSuccess);
}
Trap strings_sizes(Caller& c, const Value* a, Value* r, int n, const char* const* v) {
  uint32_t total = 0;
  for (int i = 0; i < n; i++) total += uint32_t(std::strlen(v[i])) + 1;
  if (!put32(c, uint32_t(a[0].bits), uint32_t(n)) || !put32(c, uint32_t(a[1].bits), total)) return ret(r, kFault);
  return ret(r, kSuccess);
}

Trap args_get(Caller& c, const Value* a, Value* r, void* u) { return strings_get(c, a, r, cfg_of(c, u).argc, cfg_of(c, u).argv); }
Trap args_sizes_get(Caller& c, const Value* a, Value* r, void* u) {
  return strings_sizes(c, a, r, cfg_of(c, u).argc, cfg_of(c, u).argv);
}
Trap environ_get(Caller& c, const Value* a, Value* r, void* u) {
  return strings_get(c, a, r, cfg_of(c, u).envc, cfg_of(c, u).envp);
}
Trap environ_sizes_get(Caller& c, const Value* a, Value* r, void* u) {
  return strings_sizes(c, a, r, cfg_of(c, u).envc, cfg_of(c, u).envp);
}

Trap fd_write(Caller& c, const Value* a, Value* r, void* u) {
  const WasiConfig& cfg = cfg_of(c, u);
  uint32_t fd = uint32_t(a[0].bits), iovs = uint32_t(a[1].bits), n = uint32_t(a[2].bits);
  if (fd != 1 && fd != 2) return ret(r, kBadf);
  uint32_t size;
  uint8_t* mem = c.memory(&size);
  uint32_t written = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t iov[2];
    if (!c.read(iovs + 8 * i, iov, 8)) return ret(r, kFault);
    if (!mem || uint64_t(iov[0]) + iov[1] > size) return ret(r, kFault);
    if (iov[1] && cfg.write && !cfg.write(cfg.write_ctx, int(fd), mem + iov[0], iov[1])) return ret(r, kBadf);
    written += iov[1];
  }
  if (!put32(c, uint32_t(a[3].bits), written)) return ret(r, kFault);
  return ret(r, kSuccess);
}

Trap fd_read(Caller& c, const Value* a, Value* r, void*) {
  // stdin is empty for pods: reading it is end of file
  if (uint32_t(a[0].bits) != 0) return ret(r, kBadf);
  if (!put32(c, uint32_t(a[3].bits), 0)) return ret(r, kFault);
  return ret(r, kSuccess);
}

Trap fd_close(Caller&, const Value* a, Value* r, void*) { return ret(r, uint32_t(a[0].bits) <= 2 ? kSuccess : kBadf); }

Trap fd_seek(Caller&, const Value* a, Value* r, void*) { return ret(r, uint32_t(a[0].bits) <= 2 ? kSpipe : kBadf); }

Trap fd_fdstat_get(Caller& c, const Value* a, Value* r, void*) {
  uint32_t fd = uint32_t(a[0].bits);
  if (fd > 2) return ret(r, kBadf);
  uint8_t st[24] = {};
  st[0] = 2;  // character device
  uint64_t rights = fd == 0 ? 0x2 /* fd_read */ : 0x40 /* fd_write */;
  std::memcpy(st + 8, &rights, 8);
  if (!c.write(uint32_t(a[1].bits), st, sizeof st)) return ret(r, kFault);
  return ret(r, kSuccess);
}

Trap fd_prestat_get(Caller&, const Value*, Value* r, void*) { return ret(r, kBadf); }
Trap fd_prestat_dir_name(Caller&, const Value*, Value* r, void*) { return ret(r, kBadf); }

Trap clock_time_get(Caller& c, const Value* a, Value* r, void* u) {
  uint32_t id = uint32_t(a[0].bits);
  if (id > 3) return ret(r, kInval);
  const WasiConfig& cfg = cfg_of(c, u);
  uint64_t ns = cfg.clock_ns ? cfg.clock_ns(cfg.sys_ctx, id) : 0;
  if (!put64(c, uint32_t(a[2].bits), ns)) return ret(r, kFault);
  return ret(r, kSuccess);
}

Trap clock_res_get(Caller& c, const Value* a, Value* r, void*) {
  if (uint32_t(a[0].bits) > 3) return ret(r, kInval);
  if (!put64(c, uint32_t(a[1].bits), 1000)) return ret(r, kFault);
  return ret(r, kSuccess);
}

Trap random_get(Caller& c, const Value* a, Value* r, void* u) {
  const WasiConfig& cfg = cfg_of(c, u);
  uint32_t addr = uint32_t(a[0].bits), len = uint32_t(a[1].bits);
  uint32_t size;
  uint8_t* mem = c.memory(&size);
  if (!mem || uint64_t(addr) + len > size) return ret(r, kFault);
  if (!cfg.random) return ret(r, kNosys);
  cfg.random(cfg.sys_ctx, mem + addr, len);
  return ret(r, kSuccess);
}

Trap proc_exit(Caller&, const Value* a, Value*, void*) {
  Trap t = trap_make(TrapCode::Exit);
  t.exit_code = int32_t(uint32_t(a[0].bits));
  return t;
}

Trap sched_yield(Caller&, const Value*, Value* r, void*) { return ret(r, kSuccess); }
Trap poll_oneoff(Caller&, const Value*, Value* r, void*) { return ret(r, kNosys); }

struct Entry {
  const char* name;
  const char* sig;
  HostFn fn;
};
const Entry kWasi[] = {
    {"args_get", "ii:i", args_get},
    {"args_sizes_get", "ii:i", args_sizes_get},
    {"environ_get", "ii:i", environ_get},
    {"environ_sizes_get", "ii:i", environ_sizes_get},
    {"fd_write", "iiii:i", fd_write},
    {"fd_read", "iiii:i", fd_read},
    {"fd_close", "i:i", fd_close},
    {"fd_seek", "iIii:i", fd_seek},
    {"fd_fdstat_get", "ii:i", fd_fdstat_get},
    {"fd_prestat_get", "ii:i", fd_prestat_get},
    {"fd_prestat_dir_name", "iii:i", fd_prestat_dir_name},
    {"clock_time_get", "iIi:i", clock_time_get},
    {"clock_res_get", "ii:i", clock_res_get},
    {"random_get", "ii:i", random_get},
    {"proc_exit", "i:", proc_exit},
    {"sched_yield", ":i", sched_yield},
    {"poll_oneoff", "iiii:i", poll_oneoff},
};

}  // namespace

void wasi_attach(Store* s, const WasiConfig* cfg) { s->wasi = cfg; }

bool wasi_function(const char* name, const char** sig, HostFn* fn) {
  for (const Entry& e : kWasi)
    if (std::strcmp(e.name, name) == 0) {
      *sig = e.sig;
      *fn = e.fn;
      return true;
    }
  return false;
}

bool wasi_define(Store* s, const WasiConfig* cfg) {
  for (const Entry& e : kWasi)
    if (!store_define_host(s, "wasi_snapshot_preview1", e.name, e.sig, e.fn, const_cast<WasiConfig*>(cfg))) return false;
  return true;
}

}  // namespace wasm
}  // namespace k32
