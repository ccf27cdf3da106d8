// The property checks of the fuzz targets: a failed check prints what broke and aborts, which
// libFuzzer reports as a crash with the input saved (unlike assert, also under NDEBUG).
#pragma once
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__); \
      std::fprintf(stderr, "\n"); \
      std::abort(); \
    } \
  } while (0)
