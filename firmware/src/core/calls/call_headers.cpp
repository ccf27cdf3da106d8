#include "core/calls/call_headers.h"

#include <cctype>
#include <cstring>

namespace k32 {
namespace calls {

namespace {
const char* const kPodHeaders[] = {"Content-Type", "Cookie", "X-Request-Id", "Accept-Encoding"};
const char* const kConnectionOwned[] = {"Host", "Content-Length", "Connection", "Transfer-Encoding", "Keep-Alive", "Upgrade",
                                        "TE",   "Trailer",        "Expect"};

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr; }
std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}
}  // namespace

bool header_name_is(const std::string& name, const char* want) {
  size_t n = std::strlen(want);
  if (name.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != std::tolower(static_cast<unsigned char>(want[i]))) return false;
  return true;
}

bool parse_call_headers(const std::string& text, std::vector<http::Header>* out, std::string* err) {
  out->clear();
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    size_t end = text.find("\r\n", pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 2;
    if (line.empty()) continue;
    size_t colon = line.find(':');
    std::string name = colon == std::string::npos ? std::string() : line.substr(0, colon);
    bool ok = !name.empty();
    for (char c : name) ok = ok && token_char(c);
    if (!ok) {
      *err = "headers line " + std::to_string(line_no) + ": expected \"Name: value\"";
      return false;
    }
    std::string value = trim(line.substr(colon + 1));
    if (value.find_first_of("\r\n") != std::string::npos) {
      *err = "headers line " + std::to_string(line_no) + ": value holds a bare CR or LF";
      return false;
    }
    out->push_back({name, value});
  }
  return true;
}

std::vector<http::Header> headers_for_pod(const std::vector<http::Header>& in) {
  std::vector<http::Header> out;
  for (const auto& h : in)
    for (const char* keep : kPodHeaders)
      if (header_name_is(h.name, keep)) out.push_back(h);
  return out;
}

std::vector<http::Header> headers_for_outside(const std::vector<http::Header>& in) {
  std::vector<http::Header> out;
  for (const auto& h : in) {
    bool drop = h.name.size() >= 9 && header_name_is(h.name.substr(0, 9), "X-Kube32-");
    for (const char* owned : kConnectionOwned) drop = drop || header_name_is(h.name, owned);
    if (!drop) out.push_back(h);
  }
  return out;
}

}  // namespace calls
}  // namespace k32
