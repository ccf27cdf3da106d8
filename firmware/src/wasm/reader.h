// Bounds-checked reader of the WebAssembly binary format. The first error sticks; every
// read after it returns 0, so decoding code can check once per construct.
#pragma once
#include "internal.h"

namespace k32 {
namespace wasm {

struct Reader {
  const uint8_t* base;
  const uint8_t* p;
  const uint8_t* end;
  Error* err;
  const char* section = "header";

  bool failed() const { return err->kind != Error::None; }
  uint32_t offset() const { return uint32_t(p - base); }

  bool fail(Error::Kind kind, const char* msg);  // records the first error; false
  bool malformed(const char* msg) { return fail(Error::Malformed, msg); }
  bool invalid(const char* msg) { return fail(Error::Invalid, msg); }

  bool at_end() const { return p >= end; }

  uint8_t u8() {
    if (failed()) return 0;
    if (p >= end) {
      malformed("unexpected end");
      return 0;
    }
    return *p++;
  }

  // Unsigned LEB128 of at most `bits` bits; rejects overlong encodings' unused bits.
  uint64_t uleb(unsigned bits);

  // Signed LEB128 of at most `bits` bits; unused bits of the last byte must sign-extend.
  int64_t sleb(unsigned bits);

  uint32_t u32() { return uint32_t(uleb(32)); }

  uint32_t fixed32();
  uint64_t fixed64() {
    uint64_t lo = fixed32();
    uint64_t hi = fixed32();
    return lo | hi << 32;
  }

  // A byte range of `len` inside the current bounds, or null on error.
  const uint8_t* bytes(uint32_t len) {
    if (failed()) return nullptr;
    if (uint32_t(end - p) < len) {
      malformed("unexpected end");
      return nullptr;
    }
    const uint8_t* r = p;
    p += len;
    return r;
  }
};

}  // namespace wasm
}  // namespace k32
