#include "core/sched/quantity.h"

#include <cmath>

namespace k32 {
namespace sched {

namespace {
struct Suffix {
  const char* text;
  int64_t mul;
};
const Suffix kSuffixes[] = {
    {"Ki", 1LL << 10}, {"Mi", 1LL << 20}, {"Gi", 1LL << 30},   {"Ti", 1LL << 40},
    {"k", 1000LL},     {"M", 1000000LL},  {"G", 1000000000LL}, {"T", 1000000000000LL},
};
}  // namespace

bool parse_quantity(const std::string& s, int64_t* out) {
  size_t i = 0;
  int64_t whole = 0;
  bool digits = false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (whole > (INT64_MAX - 9) / 10) return false;
    whole = whole * 10 + (s[i] - '0');
    digits = true;
    ++i;
  }
  // Fractions: only "m" (milli) and plain decimals are used by pod specs in practice.
  int64_t frac_num = 0, frac_den = 1;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (frac_den > 1000000000LL) return false;
      frac_num = frac_num * 10 + (s[i] - '0');
      frac_den *= 10;
      digits = true;
      ++i;
    }
  }
  if (!digits) return false;
  std::string suffix = s.substr(i);
  int64_t mul = 1;
  bool milli = false;
  if (suffix == "m") {
    milli = true;
  } else if (!suffix.empty()) {
    bool found = false;
    for (const Suffix& x : kSuffixes)
      if (suffix == x.text) {
        mul = x.mul;
        found = true;
      }
    if (!found) return false;
  }
  if (whole > INT64_MAX / mul) return false;
  int64_t v = whole * mul;
  if (frac_num)
    v +=
        static_cast<int64_t>(std::ceil(static_cast<double>(frac_num) / static_cast<double>(frac_den) * static_cast<double>(mul)));
  if (milli) v = (v + 999) / 1000;
  *out = v;
  return true;
}

}  // namespace sched
}  // namespace k32
