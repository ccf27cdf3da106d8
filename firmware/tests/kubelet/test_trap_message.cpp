// A container's trap message: the interpreter's words, and for "call stack exhausted" what
// the image can need (its static value stack bound) beside what the board gives, or why the
// image has no bound.
#include <cstring>
#include <string>

#include "check.h"
#include "core/kubelet/kubelet.h"
#include "core/kubelet/pod_instance.h"
#include "core/util/text.h"
#include "port.h"

using namespace k32;
using namespace k32::kubelet;

namespace {

// wat2wasm of (module (func $f (export "f") (param i32) (result i32) (local i64)
//   (i32.add (local.get 0) (i32.const 1))))
const uint8_t kFlat[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7f,
                         0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, 0x0a,
                         0x0b, 0x01, 0x09, 0x01, 0x01, 0x7e, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x0b};
// wat2wasm of (module (func $r (export "r") (call $r)))
const uint8_t kRecursive[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01,
                              0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x05, 0x01, 0x01,
                              0x72, 0x00, 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x10, 0x00, 0x0b};

std::string message_for(const uint8_t* bytes, size_t len, wasm::TrapCode code) {
  wasm::Error err;
  Container c;
  c.module = wasm::module_load(bytes, len, wasm::default_allocator(), &err);
  CHECK(c.module != nullptr);
  std::string out = trap_message(&c, wasm::trap_make(code));
  wasm::module_free(c.module);
  return out;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

int main() {
  const std::string board = text::to_string(static_cast<int64_t>(kValueStackSlots) * 8) + " bytes of value stack and " +
                            text::to_string(static_cast<int64_t>(kCallDepth)) + " nested calls";
  // 1 param + 1 local + 2 operands = 4 slots, one frame (the interpreter starts with two)
  std::string flat = message_for(kFlat, sizeof kFlat, wasm::TrapCode::CallStackExhausted);
  CHECK(has(flat, "call stack exhausted (the image needs up to 32 bytes of value stack and 2 nested calls"));
  CHECK(has(flat, "this node gives " + board + ")"));
  std::string rec = message_for(kRecursive, sizeof kRecursive, wasm::TrapCode::CallStackExhausted);
  CHECK(has(rec, "(the image has no static bound: function 0 calls itself (recursion); this node gives " + board + ")"));
  // other traps keep the interpreter's words alone
  CHECK_EQ(message_for(kFlat, sizeof kFlat, wasm::TrapCode::Unreachable), std::string("unreachable"));
  if (!has(flat, "32 bytes") || !has(rec, "calls itself")) std::fprintf(stderr, "got: %s\n     %s\n", flat.c_str(), rec.c_str());
  TEST_MAIN_END();
}
