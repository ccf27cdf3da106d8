// k32-wasm: the interpreter as a command-line tool for the Python side (k32 wasm …).
//   k32-wasm serve                      line protocol for the spec-test runner
//   k32-wasm run [options] MODULE [-- ARGS…]   run a WASI command or one export
//   k32-wasm validate MODULE            load + validate only
//   k32-wasm stack-bound MODULE         the value stack and call depth a run of it can need
#include <cstdio>
#include <cstring>

#include "tool.h"
#include "wasm.h"

namespace k32 {
namespace wasmtool {

bool read_file(const char* path, std::vector<uint8_t>* out) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

// Loads the one MODULE a subcommand takes; on failure says why on stderr and sets *rc (2 for
// usage, 1 for a file that cannot be read or loaded).
static wasm::Module* load_module_arg(const char* cmd, int argc, char** argv, int* rc) {
  if (argc != 1) {
    std::fprintf(stderr, "usage: k32-wasm %s MODULE.wasm\n", cmd);
    *rc = 2;
    return nullptr;
  }
  std::vector<uint8_t> bytes;
  if (!read_file(argv[0], &bytes)) {
    std::fprintf(stderr, "%s: cannot read the file\n", argv[0]);
    *rc = 1;
    return nullptr;
  }
  wasm::Error err;
  wasm::Module* m = wasm::module_load(bytes.data(), bytes.size(), wasm::default_allocator(), &err);
  if (!m) {
    std::fprintf(stderr, "%s: %s\n", argv[0], err.message);
    *rc = 1;
  }
  return m;
}

static int validate_main(int argc, char** argv) {
  int rc = 0;
  wasm::Module* m = load_module_arg("validate", argc, argv, &rc);
  if (!m) return rc;
  std::printf("%s: valid, %zu bytes compiled\n", argv[0], wasm::module_code_bytes(m));
  wasm::module_free(m);
  return 0;
}

// One line: `slots N bytes N frames N`, or `unbounded WHY` (exit 0 either way; 1 when the
// module does not load).
static int stack_bound_main(int argc, char** argv) {
  int rc = 0;
  wasm::Module* m = load_module_arg("stack-bound", argc, argv, &rc);
  if (!m) return rc;
  const wasm::StackBound& b = wasm::module_stack_bound(m);
  if (b.bounded)
    std::printf("slots %u bytes %llu frames %u\n", unsigned(b.slots), (unsigned long long)b.slots * 8, unsigned(b.frames));
  else std::printf("unbounded %s\n", b.why);
  wasm::module_free(m);
  return 0;
}

}  // namespace wasmtool
}  // namespace k32

int main(int argc, char** argv) {
  using namespace k32::wasmtool;
  if (argc >= 2 && std::strcmp(argv[1], "serve") == 0) return serve_main();
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return run_main(argc - 2, argv + 2);
  if (argc >= 2 && std::strcmp(argv[1], "validate") == 0) return validate_main(argc - 2, argv + 2);
  if (argc >= 2 && std::strcmp(argv[1], "stack-bound") == 0) return stack_bound_main(argc - 2, argv + 2);
  std::fprintf(stderr, "usage: k32-wasm serve | run [options] MODULE [-- ARGS...] | validate MODULE | stack-bound MODULE\n");
  return 2;
}
