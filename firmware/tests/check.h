// Minimal test harness for the firmware unit tests: no exceptions, no framework.
#pragma once
#include <cstdio>
#include <cstdlib>

namespace k32test {
inline int& failures() {
  static int n = 0;
  return n;
}
inline int& checks() {
  static int n = 0;
  return n;
}
}

#define CHECK(cond) \
  do { \
    ++k32test::checks(); \
    if (!(cond)) { \
      ++k32test::failures(); \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    } \
  } while (0)

#define CHECK_EQ(a, b) CHECK((a) == (b))

#define TEST_MAIN_END() \
  do { \
    std::printf("%d checks, %d failed\n", k32test::checks(), k32test::failures()); \
    return k32test::failures() ? 1 : 0; \
  } while (0)
