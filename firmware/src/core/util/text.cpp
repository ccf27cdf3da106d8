#include "core/util/text.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "port.h"

namespace k32 {
namespace text {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, const std::string& x) {
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

bool iequals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool parse_uint(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

namespace {
std::string decode(const std::string& s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}
}  // namespace

std::string url_decode(const std::string& s) { return decode(s, true); }
std::string percent_decode(const std::string& s) { return decode(s, false); }

bool valid_utf8(const std::string& s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int more;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      cp = c & 0x07;
    } else return false;
    if (n - i <= static_cast<size_t>(more)) return false;
    for (int k = 1; k <= more; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((more == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (more == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += static_cast<size_t>(more) + 1;
  }
  return true;
}

std::string rfc3339(int64_t unix_s) {
  time_t t = static_cast<time_t>(unix_s);
  struct tm tmv;
  gmtime_r(&t, &tmv);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  return buf;
}

std::string rfc3339_micro(int64_t unix_ms) {
  time_t t = static_cast<time_t>(unix_ms / 1000);
  struct tm tmv;
  gmtime_r(&t, &tmv);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tmv);
  std::snprintf(buf + n, sizeof buf - n, ".%06dZ", static_cast<int>((unix_ms % 1000) * 1000));
  return buf;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int64_t parse_rfc3339(const std::string& s) {
  int Y, M, D, h, m, sec;
  if (s.size() < 20 || std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &Y, &M, &D, &h, &m, &sec) != 6) return -1;
  if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60) return -1;
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  int64_t offset = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2) return -1;
    offset = (oh * 3600 + om * 60) * (s[i] == '+' ? 1 : -1);
  } else if (i >= s.size() || (s[i] != 'Z' && s[i] != 'z')) {
    return -1;
  }
  return days_from_civil(Y, static_cast<unsigned>(M), static_cast<unsigned>(D)) * 86400 + h * 3600 + m * 60 + sec - offset;
}

std::string human_duration(int64_t s) {
  char buf[32];
  if (s < 0) s = 0;
  if (s < 120) {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  } else if (s < 600) {
    int64_t m = s / 60, r = s % 60;
    if (r == 0) std::snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(m));
    else std::snprintf(buf, sizeof buf, "%lldm%llds", static_cast<long long>(m), static_cast<long long>(r));
  } else if (s < 3 * 3600) {
    int64_t h = s / 3600, m = (s % 3600) / 60;
    if (h == 0) std::snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(s / 60));
    else if (m == 0) std::snprintf(buf, sizeof buf, "%lldh", static_cast<long long>(h));
    else std::snprintf(buf, sizeof buf, "%lldh%lldm", static_cast<long long>(h), static_cast<long long>(m));
  } else if (s < 8 * 3600) {
    int64_t h = s / 3600, m = (s % 3600) / 60;
    if (m == 0) std::snprintf(buf, sizeof buf, "%lldh", static_cast<long long>(h));
    else std::snprintf(buf, sizeof buf, "%lldh%lldm", static_cast<long long>(h), static_cast<long long>(m));
  } else if (s < 48 * 3600) {
    std::snprintf(buf, sizeof buf, "%lldh", static_cast<long long>(s / 3600));
  } else if (s < 8 * 86400) {
    int64_t d = s / 86400, h = (s % 86400) / 3600;
    if (h == 0) std::snprintf(buf, sizeof buf, "%lldd", static_cast<long long>(d));
    else std::snprintf(buf, sizeof buf, "%lldd%lldh", static_cast<long long>(d), static_cast<long long>(h));
  } else if (s < 2 * 365 * 86400) {
    std::snprintf(buf, sizeof buf, "%lldd", static_cast<long long>(s / 86400));
  } else {
    std::snprintf(buf, sizeof buf, "%lldy", static_cast<long long>(s / (365 * 86400)));
  }
  return buf;
}

std::string uuid4() {
  uint8_t b[16];
  port::random_fill(b, sizeof b);
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
  std::string h = hex(b, sizeof b);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

std::string to_string(int64_t v) {
  // Digits by hand: snprintf costs several hundred instructions, and every response's
  // Content-Length goes through here.
  char buf[24];
  char* end = buf + sizeof buf;
  char* p = end;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *--p = '-';
  return std::string(p, static_cast<size_t>(end - p));
}

std::string hex(const uint8_t* data, size_t len) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (size_t i = 0; i < len; ++i) {
    out.push_back(d[data[i] >> 4]);
    out.push_back(d[data[i] & 15]);
  }
  return out;
}

}  // namespace text
}  // namespace k32
