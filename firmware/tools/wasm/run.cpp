// `k32-wasm run`: runs a WASI command (_start) or one export, with the pod limits.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <ctime>
#include <vector>

#include "tool.h"
#include "wasm.h"

extern char** environ;

namespace k32 {
namespace wasmtool {

using namespace k32::wasm;

namespace {

bool write_out(void*, int fd, const uint8_t* data, size_t len) {
  std::FILE* f = fd == 1 ? stdout : stderr;
  return std::fwrite(data, 1, len, f) == len;
}

uint64_t clock_ns(void*, uint32_t id) {
#if defined(CLOCK_PROCESS_CPUTIME_ID)  // POSIX; the bare-metal build answers with the monotonic clock
  if (id == 2 || id == 3) {            // CPU time: what `k32 bench wasm` measures on a shared machine
    timespec ts;
    clock_gettime(id == 2 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  }
#endif
  if (id == 0)
    return uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

void random_bytes(void*, uint8_t* buf, size_t len) {
  std::random_device rd;
  for (size_t i = 0; i < len; i++) buf[i] = uint8_t(rd());
}

bool parse_arg(const char* s, ValType t, Value* v) {
  char* end = nullptr;
  switch (t) {
    case ValType::I32: {
      long long x = std::strtoll(s, &end, 0);
      v->bits = uint32_t(x);
      break;
    }
    case ValType::I64: {
      v->bits = s[0] == '-' ? uint64_t(std::strtoll(s, &end, 0)) : std::strtoull(s, &end, 0);
      break;
    }
    case ValType::F32: {
      float f = std::strtof(s, &end);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      v->bits = b;
      break;
    }
    case ValType::F64: {
      double d = std::strtod(s, &end);
      std::memcpy(&v->bits, &d, 8);
      break;
    }
    default: return false;
  }
  return end && *end == 0 && end != s;
}

void print_result(ValType t, Value v) {
  switch (t) {
    case ValType::I32: std::printf("%" PRId32 "\n", int32_t(uint32_t(v.bits))); break;
    case ValType::I64: std::printf("%" PRId64 "\n", int64_t(v.bits)); break;
    case ValType::F32: {
      float f;
      uint32_t b = uint32_t(v.bits);
      std::memcpy(&f, &b, 4);
      std::printf("%.9g\n", double(f));
      break;
    }
    case ValType::F64: {
      double d;
      std::memcpy(&d, &v.bits, 8);
      std::printf("%.17g\n", d);
      break;
    }
    default: std::printf("%s\n", v.bits ? "ref" : "null");
  }
}

int usage() {
  std::fprintf(
      stderr, "usage: k32-wasm run [--invoke NAME] [--fuel N] [--max-pages N] [--stack-slots N] [--call-depth N] [--time] MODULE "
              "[INVOKE-ARGS...] [-- PROGRAM-ARGS...]\n");
  return 2;
}

}  // namespace

int run_main(int argc, char** argv) {
  const char* invoke = nullptr;
  const char* path = nullptr;
  bool timing = false;
  int64_t fuel = -1;
  Limits lim;
  std::vector<const char*> invoke_args, prog_args;
  int i = 0;
  for (; i < argc; i++) {
    const char* a = argv[i];
    if (std::strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (std::strcmp(a, "--invoke") == 0 && i + 1 < argc) invoke = argv[++i];
    else if (std::strcmp(a, "--fuel") == 0 && i + 1 < argc) fuel = std::strtoll(argv[++i], nullptr, 10);
    else if (std::strcmp(a, "--max-pages") == 0 && i + 1 < argc)
      lim.max_memory_pages = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (std::strcmp(a, "--time") == 0) timing = true;
    else if (std::strcmp(a, "--stack-slots") == 0 && i + 1 < argc)
      lim.value_stack_slots = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (std::strcmp(a, "--call-depth") == 0 && i + 1 < argc) lim.call_depth = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (a[0] == '-' && a[1] == '-') return usage();
    else if (!path) path = a;
    else invoke_args.push_back(a);
  }
  if (!path) return usage();
  prog_args.push_back(path);
  for (; i < argc; i++) prog_args.push_back(argv[i]);

  std::vector<uint8_t> bytes;
  if (!read_file(path, &bytes)) {
    std::fprintf(stderr, "%s: cannot read the file\n", path);
    return 2;
  }
  Error err;
  Module* m = module_load(bytes.data(), bytes.size(), default_allocator(), &err);
  if (!m) {
    std::fprintf(stderr, "%s: %s\n", path, err.message);
    return 2;
  }
  Store* s = store_new(default_allocator(), lim);
  int envc = 0;
  while (environ && environ[envc]) envc++;
  WasiConfig wasi{int(prog_args.size()), prog_args.data(), envc, environ, write_out, nullptr, clock_ns, random_bytes, nullptr};
  if (!s || !wasi_define(s, &wasi)) {
    std::fprintf(stderr, "%s: out of memory\n", path);
    return 2;
  }
  store_set_fuel(s, fuel);
  auto t0 = std::chrono::steady_clock::now();
  Trap trap;
  Instance* inst = instantiate(s, m, &err, &trap);
  int rc = 0;
  if (!inst && trap.ok()) {
    std::fprintf(stderr, "%s: %s\n", path, err.message);
    rc = 2;
  } else if (inst) {
    Extern e;
    const char* name = invoke ? invoke : "_start";
    if (!instance_export(inst, name, &e) || e.kind != ExternKind::Func) {
      std::fprintf(stderr, "%s: no exported function \"%s\"\n", path, name);
      rc = 2;
    } else {
      Func* f = static_cast<Func*>(e.ptr);
      uint32_t np = func_param_count(f), nr = func_result_count(f);
      std::vector<Value> args(np), res(nr);
      if (invoke_args.size() != np) {
        std::fprintf(stderr, "%s: \"%s\" takes %" PRIu32 " arguments, %zu given\n", path, name, np, invoke_args.size());
        rc = 2;
      } else {
        for (uint32_t k = 0; k < np; k++) {
          if (!parse_arg(invoke_args[k], func_param_type(f, k), &args[k])) {
            std::fprintf(stderr, "%s: argument %" PRIu32 " \"%s\" is not a valid number\n", path, k + 1, invoke_args[k]);
            rc = 2;
          }
        }
        if (rc == 0) {
          trap = call(s, f, args.data(), np, res.data(), nr);
          if (trap.ok())
            for (uint32_t k = 0; k < nr; k++) print_result(func_result_type(f, k), res[k]);
        }
      }
    }
  }
  auto t1 = std::chrono::steady_clock::now();
  std::fflush(stdout);
  size_t memory_bytes = 0;
  Extern mem;
  if (inst && instance_export(inst, "memory", &mem) && mem.kind == ExternKind::Memory)
    memory_bytes = size_t(memory_pages(static_cast<Memory*>(mem.ptr))) * kPageSize;
  if (!trap.ok()) {
    if (trap.code == TrapCode::Exit) {
      rc = trap.exit_code;
    } else {
      std::fprintf(stderr, "%s: trap: %s\n", path, trap.message);
      rc = 3;
    }
  }
  if (timing)
    std::fprintf(stderr, "k32-wasm: time_ns %lld store_bytes %zu memory_bytes %zu stack_bytes %zu code_bytes %zu\n",
                 (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count(), store_bytes_in_use(s),
                 memory_bytes, size_t(lim.value_stack_slots) * 8, module_code_bytes(m));
  store_free(s);
  module_free(m);
  return rc;
}

}  // namespace wasmtool
}  // namespace k32
