// `k32-wasm serve`: a line protocol over stdin/stdout that lets the Python spec-test runner
// drive one Store (one .wast script) command by command. See docs/wasm.md for the protocol.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tool.h"
#include "wasm.h"

namespace k32 {
namespace wasmtool {

using namespace k32::wasm;

namespace {

Trap print_fn(Caller&, const Value*, Value*, void*) { return trap_ok(); }

bool define_spectest(Store* s) {
  static const char* const kPrints[][2] = {{"print", ":"},          {"print_i32", "i:"}, {"print_i64", "I:"},
                                           {"print_f32", "f:"},     {"print_f64", "F:"}, {"print_i32_f32", "if:"},
                                           {"print_f64_f64", "FF:"}};
  for (auto& p : kPrints)
    if (!store_define_host(s, "spectest", p[0], p[1], print_fn, nullptr)) return false;
  float f = 666.6f;
  double d = 666.6;
  uint32_t fb;
  uint64_t db;
  std::memcpy(&fb, &f, 4);
  std::memcpy(&db, &d, 8);
  Global* g32 = global_new(s, ValType::I32, false, Value{666});
  Global* g64 = global_new(s, ValType::I64, false, Value{666});
  Global* gf = global_new(s, ValType::F32, false, Value{fb});
  Global* gd = global_new(s, ValType::F64, false, Value{db});
  Table* t = table_new(s, ValType::FuncRef, 10, 20);
  Memory* m = memory_new(s, 1, 2);
  return store_define(s, "spectest", "global_i32", {ExternKind::Global, g32}) &&
         store_define(s, "spectest", "global_i64", {ExternKind::Global, g64}) &&
         store_define(s, "spectest", "global_f32", {ExternKind::Global, gf}) &&
         store_define(s, "spectest", "global_f64", {ExternKind::Global, gd}) &&
         store_define(s, "spectest", "table", {ExternKind::Table, t}) &&
         store_define(s, "spectest", "memory", {ExternKind::Memory, m});
}

const char* kind_name(Error::Kind k) {
  switch (k) {
    case Error::Malformed: return "malformed";
    case Error::Invalid: return "invalid";
    case Error::Unlinkable: return "unlinkable";
    case Error::OutOfMemory: return "oom";
    default: return "error";
  }
}

// Names travel as "x" + hex, so an empty name is the token "x" and NUL bytes survive.
std::string unhex(const char* h) {
  std::string out;
  if (*h == 'x') ++h;
  for (size_t i = 0; h[i] && h[i + 1]; i += 2) {
    char b[3] = {h[i], h[i + 1], 0};
    out.push_back(char(std::strtoul(b, nullptr, 16)));
  }
  return out;
}

bool parse_value(const char* tok, ValType want, Value* v) {
  const char* colon = std::strchr(tok, ':');
  if (!colon) return false;
  const char* val = colon + 1;
  if (want == ValType::FuncRef || want == ValType::ExternRef) {
    if (std::strcmp(val, "null") == 0) v->bits = 0;
    else v->bits = std::strtoull(val, nullptr, 10) + 1;  // externref N is stored as N+1
    return true;
  }
  v->bits = std::strtoull(val, nullptr, 10);
  return true;
}

void print_value(ValType t, Value v) {
  switch (t) {
    case ValType::I32: std::printf(" i32:%" PRIu32, uint32_t(v.bits)); break;
    case ValType::I64: std::printf(" i64:%" PRIu64, v.bits); break;
    case ValType::F32: std::printf(" f32:%" PRIu32, uint32_t(v.bits)); break;
    case ValType::F64: std::printf(" f64:%" PRIu64, v.bits); break;
    case ValType::FuncRef:
      if (v.bits) std::printf(" funcref:0");
      else std::printf(" funcref:null");
      break;
    case ValType::ExternRef:
      if (v.bits) std::printf(" externref:%" PRIu64, v.bits - 1);
      else std::printf(" externref:null");
      break;
  }
}

struct Named {
  std::string name;
  Instance* inst;
};

}  // namespace

int serve_main() {
  Limits lim;
  Store* s = store_new(default_allocator(), lim);
  if (!s || !define_spectest(s)) {
    std::fprintf(stderr, "k32-wasm serve: cannot create the store\n");
    return 2;
  }
  std::vector<Module*> modules;
  std::vector<Named> named;
  Instance* current = nullptr;
  char line[1 << 16];
  auto find = [&](const std::string& n) -> Instance* {
    if (n == "-") return current;
    for (auto it = named.rbegin(); it != named.rend(); ++it)
      if (it->name == n) return it->inst;
    return nullptr;
  };
  while (std::fgets(line, sizeof line, stdin)) {
    std::vector<char*> tok;
    for (char* p = std::strtok(line, " \t\r\n"); p; p = std::strtok(nullptr, " \t\r\n")) tok.push_back(p);
    if (tok.empty()) continue;
    std::string cmd = tok[0];
    if ((cmd == "module" || cmd == "check") && tok.size() == 3) {
      std::vector<uint8_t> bytes;
      if (!read_file(tok[2], &bytes)) {
        std::printf("error io cannot read %s\n", tok[2]);
      } else {
        Error err;
        Module* m = module_load(bytes.data(), bytes.size(), default_allocator(), &err);
        if (!m) {
          std::printf("error %s %s\n", kind_name(err.kind), err.message);
        } else if (cmd == "check") {
          module_free(m);
          std::printf("ok\n");
        } else {
          modules.push_back(m);
          Trap trap;
          Instance* inst = instantiate(s, m, &err, &trap);
          if (!inst) {
            if (!trap.ok()) std::printf("error trap %s\n", trap.message);
            else std::printf("error %s %s\n", kind_name(err.kind), err.message);
          } else {
            current = inst;
            if (std::strcmp(tok[1], "-") != 0) named.push_back({tok[1], inst});
            std::printf("ok\n");
          }
        }
      }
    } else if (cmd == "register" && tok.size() == 3) {
      Instance* inst = find(tok[2]);
      if (!inst) std::printf("error unknown module %s\n", tok[2]);
      else if (!store_register_instance(s, unhex(tok[1]).c_str(), inst)) std::printf("error oom\n");
      else std::printf("ok\n");
    } else if ((cmd == "invoke" || cmd == "get") && tok.size() >= 3) {
      Instance* inst = find(tok[1]);
      Extern e;
      std::string field = unhex(tok[2]);
      if (!inst || !instance_export(inst, field.data(), field.size(), &e)) {
        std::printf("error unknown export\n");
      } else if (cmd == "get") {
        if (e.kind != ExternKind::Global) {
          std::printf("error not a global\n");
        } else {
          Global* g = static_cast<Global*>(e.ptr);
          std::printf("ok");
          print_value(global_type(g), global_get(g));
          std::printf("\n");
        }
      } else if (e.kind != ExternKind::Func) {
        std::printf("error not a function\n");
      } else {
        Func* f = static_cast<Func*>(e.ptr);
        uint32_t np = func_param_count(f), nr = func_result_count(f);
        std::vector<Value> args(np), res(nr);
        bool ok = tok.size() - 3 == np;
        for (uint32_t i = 0; ok && i < np; i++) ok = parse_value(tok[3 + i], func_param_type(f, i), &args[i]);
        if (!ok) {
          std::printf("error argument count or format\n");
        } else {
          Trap t = call(s, f, args.data(), np, res.data(), nr);
          if (t.code == TrapCode::CallStackExhausted) {
            std::printf("exhausted %s\n", t.message);
          } else if (!t.ok()) {
            std::printf("trap %s\n", t.message);
          } else {
            std::printf("ok");
            for (uint32_t i = 0; i < nr; i++) print_value(func_result_type(f, i), res[i]);
            std::printf("\n");
          }
        }
      }
    } else {
      std::printf("error unknown command\n");
    }
    std::fflush(stdout);
  }
  store_free(s);
  for (Module* m : modules) module_free(m);
  return 0;
}

}  // namespace wasmtool
}  // namespace k32
