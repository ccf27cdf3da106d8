// Helpers shared by the patch tests: JSON from literals, and readable mismatch reports.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "check.h"
#include "core/json/json.h"

namespace k32test {

inline k32::json::Value J(const char* text) {
  k32::json::Value v;
  k32::json::ParseError e;
  if (!k32::json::parse(text, std::strlen(text), &v, &e)) {
    std::fprintf(stderr, "bad test JSON (%s): %s\n", e.message.c_str(), text);
    std::abort();
  }
  return v;
}

// CHECK that two values are equal, printing both when not.
inline bool same(const char* what, const k32::json::Value& got, const k32::json::Value& want) {
  if (got == want) return true;
  std::fprintf(stderr, "%s:\n  got:  %s\n  want: %s\n", what, k32::json::dump(got).c_str(), k32::json::dump(want).c_str());
  return false;
}

}  // namespace k32test
