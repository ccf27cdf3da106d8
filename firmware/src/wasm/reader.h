// Bounds-checked reader of the WebAssembly binary format. The first error sticks; every
// read after it returns 0, so decoding code can check once per construct.
#pragma once
#include <cstdio>

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

  bool fail(Error::Kind kind, const char* msg) {
    if (!failed()) {
      err->kind = kind;
      std::snprintf(err->message, sizeof err->message, "%s section @0x%x: %s", section,
                    unsigned(offset()), msg);
    }
    return false;
  }
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
  uint64_t uleb(unsigned bits) {
    uint64_t r = 0;
    unsigned shift = 0;
    for (;;) {
      if (failed()) return 0;
      if (p >= end) {
        malformed("unexpected end of LEB128");
        return 0;
      }
      uint8_t b = *p++;
      if (shift + 7 >= bits && shift < 64) {
        unsigned used = bits - shift;  // payload bits allowed in this byte
        if ((b & 0x80) || (used < 7 && (b & 0x7F) >> used)) {
          if (b & 0x80) malformed("integer representation too long");
          else malformed("integer too large");
          return 0;
        }
      }
      r |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return r;
      shift += 7;
    }
  }

  int64_t sleb(unsigned bits) {
    int64_t r = 0;
    unsigned shift = 0;
    uint8_t b;
    for (;;) {
      if (failed()) return 0;
      if (p >= end) {
        malformed("unexpected end of LEB128");
        return 0;
      }
      b = *p++;
      if (shift + 7 >= bits) {
        // last permitted byte: no continuation; unused bits must sign-extend
        if (b & 0x80) {
          malformed("integer representation too long");
          return 0;
        }
        unsigned used = bits - shift;  // 1..7 payload bits incl. sign
        if (used < 7) {
          int8_t rest = int8_t(b << 1) >> (used + 1);  // bits above the payload
          int8_t sign = (b >> (used - 1)) & 1 ? -1 : 0;
          if (rest != sign) {
            malformed("integer too large");
            return 0;
          }
        }
      }
      r |= int64_t(uint64_t(b & 0x7F) << shift);
      shift += 7;
      if (!(b & 0x80)) break;
    }
    if (shift < 64 && (b & 0x40)) r |= int64_t(~uint64_t(0) << shift);
    return r;
  }

  uint32_t u32() { return uint32_t(uleb(32)); }

  uint32_t fixed32() {
    if (failed()) return 0;
    if (end - p < 4) {
      malformed("unexpected end");
      return 0;
    }
    uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    p += 4;
    return v;
  }
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
