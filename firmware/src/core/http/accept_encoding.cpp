#include "core/http/accept_encoding.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace k32 {
namespace http {

namespace {
// Read in place, without splitting the header into strings: browsers send this header on
// every request for a static file.
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

void trim(const char** b, const char** e) {
  while (*b < *e && is_space(**b)) ++*b;
  while (*e > *b && is_space((*e)[-1])) --*e;
}

const char* find(const char* b, const char* e, char c) {
  const void* p = std::memchr(b, c, static_cast<size_t>(e - b));
  return p ? static_cast<const char*>(p) : e;
}

// q-value of one list element from its parameters (what follows the coding's first ';'):
// "q=0.5" -> 0.5; 1 when absent, 0 when unparsable.
double q_of(const char* b, const char* e) {
  while (b < e) {
    const char* pe = find(b, e, ';');
    const char* s = b;
    const char* t = pe;
    trim(&s, &t);
    if (t - s >= 2 && (s[0] == 'q' || s[0] == 'Q') && s[1] == '=') {
      const char* v = s + 2;
      trim(&v, &t);
      if (v == t || t - v > 5) return 0;
      char buf[6];
      std::memcpy(buf, v, static_cast<size_t>(t - v));
      buf[t - v] = '\0';
      char* end = nullptr;
      double q = std::strtod(buf, &end);
      if (!end || *end != '\0' || q < 0 || q > 1) return 0;
      return q;
    }
    b = pe + 1;
  }
  return 1;
}

bool iequals(const char* b, const char* e, const char* want, size_t n) {
  if (static_cast<size_t>(e - b) != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(b[i])) != std::tolower(static_cast<unsigned char>(want[i]))) return false;
  return true;
}
}  // namespace

bool accepts_encoding(const std::string* header, const char* coding) {
  if (!header) return false;
  const size_t want = std::strlen(coding);
  bool have_exact = false, exact_ok = false, star_ok = false;
  const char* p = header->data();
  const char* end = p + header->size();
  for (;;) {
    const char* item_end = find(p, end, ',');
    const char* semi = find(p, item_end, ';');
    const char* nb = p;
    const char* ne = semi;
    trim(&nb, &ne);
    double q = semi < item_end ? q_of(semi + 1, item_end) : 1;
    if (iequals(nb, ne, coding, want)) {
      have_exact = true;
      exact_ok = q > 0;
    } else if (ne - nb == 1 && *nb == '*') {
      star_ok = q > 0;
    }
    if (item_end == end) break;
    p = item_end + 1;
  }
  return have_exact ? exact_ok : star_ok;
}

}  // namespace http
}  // namespace k32
