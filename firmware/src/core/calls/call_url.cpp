#include "core/calls/call_url.h"

#include <cctype>
#include <cstdio>
#include <vector>

namespace k32 {
namespace calls {

namespace {
std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

bool valid_host_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_'; }
}  // namespace

bool is_ipv4_literal(const std::string& host) {
  unsigned a, b, c, d;
  char extra;
  return std::sscanf(host.c_str(), "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &extra) == 4 && a < 256 && b < 256 && c < 256 &&
         d < 256 && host.find_first_not_of("0123456789.") == std::string::npos;
}

bool parse_call_url(const std::string& url, CallUrl* out, std::string* err) {
  *out = CallUrl();
  size_t rest;
  if (url.compare(0, 7, "http://") == 0) {
    rest = 7;
  } else if (url.compare(0, 8, "https://") == 0) {
    out->https = true;
    rest = 8;
  } else {
    *err = "url must start with http:// or https://";
    return false;
  }
  for (char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      *err = "url contains a space or control character";
      return false;
    }
  size_t path_at = url.find_first_of("/?", rest);
  std::string authority = url.substr(rest, path_at == std::string::npos ? std::string::npos : path_at - rest);
  out->path = path_at == std::string::npos ? "/" : url.substr(path_at);
  if (!out->path.empty() && out->path[0] == '?') out->path = "/" + out->path;
  if (authority.find('@') != std::string::npos) {
    *err = "url must not carry user information";
    return false;
  }
  size_t colon = authority.find(':');
  std::string host = authority.substr(0, colon);
  if (colon != std::string::npos) {
    std::string p = authority.substr(colon + 1);
    if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) {
      *err = "url port must be a number 1..65535";
      return false;
    }
    unsigned long v = std::strtoul(p.c_str(), nullptr, 10);
    if (v < 1 || v > 65535) {
      *err = "url port must be a number 1..65535";
      return false;
    }
    out->port = static_cast<uint16_t>(v);
  }
  if (host.empty() || host.size() > 253) {
    *err = "url host must be 1..253 characters";
    return false;
  }
  for (char& c : host) {
    if (!valid_host_char(c)) {
      *err = "url host may hold only letters, digits, '-', '_' and '.'";
      return false;
    }
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (host.front() == '.' || host.find("..") != std::string::npos) {
    *err = "url host has an empty label";
    return false;
  }
  if (host.back() == '.') host.pop_back();  // a fully qualified name
  out->host = host;
  return true;
}

NameTarget classify_host(const std::string& host, const std::string& caller_ns) {
  NameTarget t;
  if (is_ipv4_literal(host)) return t;
  std::vector<std::string> p = split_dots(host);
  if (p.size() == 1) {
    t.kind = NameTarget::Service;
    t.service = p[0];
    t.ns = caller_ns;
  } else if (p.size() == 2) {
    t.kind = NameTarget::Service;
    t.service = p[0];
    t.ns = p[1];
    t.outside_fallback = true;
  } else if ((p.size() == 3 && p[2] == "svc") || (p.size() == 5 && p[2] == "svc" && p[3] == "cluster" && p[4] == "local")) {
    t.kind = NameTarget::Service;
    t.service = p[0];
    t.ns = p[1];
  }
  return t;
}

}  // namespace calls
}  // namespace k32
