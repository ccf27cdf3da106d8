// Helpers shared by the patch tests: JSON from literals, readable mismatch reports, the check
// of one table case, and the --filter mode that lets tests/apigen compare with kubectl.
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

// One table case: the patch ran and returned ok, with err and out; want is nullptr when the
// patch must fail, and then out must still be "untouched" (what the case passed in).
inline void check_case(const char* name, bool ok, const std::string& err, const k32::json::Value& out, const char* want) {
  if (want) {
    CHECK(ok);
    if (!ok) std::fprintf(stderr, "  case %s: %s\n", name, err.c_str());
    CHECK(same(name, out, J(want)));
  } else {
    CHECK(!ok);
    CHECK(!err.empty());
    if (ok) std::fprintf(stderr, "  case %s unexpectedly succeeded\n", name);
    CHECK(same(name, out, J(R"("untouched")")));  // failures leave *out alone
  }
}

// `--filter`: reads {"doc":…,"patch":…} lines on stdin and prints each result, or
// {"error":…}, as a line. apply(doc, patch, &out, &err) returns whether the patch applied.
template <typename Apply>
int filter_lines(Apply apply) {
  std::string line;
  int c;
  while ((c = std::getchar()) != EOF) {
    if (c != '\n') {
      line.push_back(static_cast<char>(c));
      continue;
    }
    k32::json::Value in, out;
    k32::json::ParseError pe;
    std::string err;
    bool ok = false;
    if (!k32::json::parse(line, &in, &pe)) err = "bad input line: " + pe.message;
    else ok = apply(in["doc"], in["patch"], &out, &err);
    if (ok) {
      std::printf("%s\n", k32::json::dump(out).c_str());
    } else {
      k32::json::Value e = k32::json::Value::object();
      e.set("error", err);
      std::printf("%s\n", k32::json::dump(e).c_str());
    }
    line.clear();
  }
  return 0;
}

}  // namespace k32test
