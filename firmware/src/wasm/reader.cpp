// The reader's out-of-line parts (reader.h), shared by the loader and the compiler.
#include "reader.h"

#include <cstdio>

namespace k32 {
namespace wasm {

bool Reader::fail(Error::Kind kind, const char* msg) {
  if (!failed()) {
    err->kind = kind;
    std::snprintf(err->message, sizeof err->message, "%s section @0x%x: %s", section, unsigned(offset()), msg);
  }
  return false;
}

uint64_t Reader::uleb(unsigned bits) {
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

int64_t Reader::sleb(unsigned bits) {
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

uint32_t Reader::fixed32() {
  if (failed()) return 0;
  if (end - p < 4) {
    malformed("unexpected end");
    return 0;
  }
  uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
  p += 4;
  return v;
}

}  // namespace wasm
}  // namespace k32
