#include "core/http/http_message.h"

#include <cstdio>
#include <cstring>

#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace http {

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 413: return "Request Entity Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

namespace {
// One table lookup per byte instead of a chain of comparisons: every request passes each of
// its header bytes through these checks, so they are on the hot path of every server.
enum : uint8_t { kToken = 1, kCtl = 2 };

struct CharClass {
  uint8_t bits[256];
  constexpr CharClass() : bits() {
    for (int c = 0; c < 256; ++c) {
      // RFC 9110 token characters: what a method and a header name may be made of.
      bool token = c > 0x20 && c < 0x7f;
      for (char d : "()<>@,;:\\\"/[]?={}")
        if (d != '\0' && c == static_cast<unsigned char>(d)) token = false;
      // Control characters (tab aside) end a header line or a request line early in some
      // parser down the line; a relay that passed them on would let a client write its own
      // headers.
      bool ctl = (c < 0x20 && c != '\t') || c == 0x7f;
      bits[c] = static_cast<uint8_t>((token ? kToken : 0) | (ctl ? kCtl : 0));
    }
  }
};
constexpr CharClass kClass;

bool is_token(const char* p, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; ++i)
    if (!(kClass.bits[static_cast<unsigned char>(p[i])] & kToken)) return false;
  return true;
}

bool has_ctl(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (kClass.bits[static_cast<unsigned char>(p[i])] & kCtl) return true;
  return false;
}

inline unsigned char ascii_lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// Compares without building a std::string from `name` (header() is called several times
// per request).
bool iequals_cstr(const std::string& a, const char* b, size_t n) {
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (ascii_lower(static_cast<unsigned char>(a[i])) != ascii_lower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool is_ows(char c) { return c == ' ' || c == '\t'; }

// Where the first "\r\n" at or after `from` starts (npos: none), as std::string::find
// would say, but found with memchr: this runs once per line of every request head.
size_t find_crlf(const std::string& s, size_t from) {
  const char* d = s.data();
  const size_t size = s.size();
  for (size_t at = from; at < size;) {
    const void* nl = std::memchr(d + at, '\n', size - at);
    if (!nl) break;
    const size_t k = static_cast<size_t>(static_cast<const char*>(nl) - d);
    if (k > from && d[k - 1] == '\r') return k - 1;
    at = k + 1;
  }
  return std::string::npos;
}
}  // namespace

const std::string* Request::header(const char* name) const {
  size_t n = std::strlen(name);
  // The length first, here: most names differ in it, and a request asks for several.
  for (const auto& h : headers)
    if (h.name.size() == n && iequals_cstr(h.name, name, n)) return &h.value;
  return nullptr;
}

bool parse_request_head(const std::string& head, Request* req) {
  // The request line is "METHOD SP target SP version": exactly two spaces, three parts.
  size_t eol = find_crlf(head, 0);
  size_t line_end = eol == std::string::npos ? head.size() : eol;
  const char* line = head.data();
  size_t sp1 = head.find(' ');
  if (sp1 == std::string::npos || sp1 >= line_end) return false;
  size_t sp2 = head.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || sp2 >= line_end) return false;
  if (head.find(' ', sp2 + 1) < line_end) return false;
  const char* target = line + sp1 + 1;
  size_t target_len = sp2 - sp1 - 1;
  const char* version = line + sp2 + 1;
  size_t version_len = line_end - sp2 - 1;
  if (!is_token(line, sp1) || target_len == 0 || has_ctl(target, target_len)) return false;
  if (version_len != 8 || (std::memcmp(version, "HTTP/1.1", 8) != 0 && std::memcmp(version, "HTTP/1.0", 8) != 0)) return false;
  req->method.assign(line, sp1);
  req->target.assign(target, target_len);
  req->version.assign(version, version_len);
  size_t q = req->target.find('?');
  size_t path_len = q == std::string::npos ? req->target.size() : q;
  if (path_len == 0 || req->target[0] != '/') return false;
  // '+' is a space only in queries: the path is percent-decoded alone.
  if (std::memchr(target, '%', path_len)) req->path = text::percent_decode(req->target.substr(0, path_len));
  else req->path.assign(target, path_len);  // nothing to decode: no temporary copies
  if (q == std::string::npos) req->query.clear();
  else req->query.assign(req->target, q + 1, std::string::npos);
  if (!parse_header_lines(head, true, &req->headers)) return false;
  // Two framings for one body are how requests get smuggled past a relay: refuse both a
  // Transfer-Encoding with a Content-Length and Content-Lengths that disagree.
  const std::string* cl = req->header("Content-Length");
  if (!cl) return true;
  if (req->header("Transfer-Encoding")) return false;
  for (const auto& h : req->headers)
    if (iequals_cstr(h.name, "Content-Length", 14) && h.value != *cl) return false;
  return true;
}

bool parse_header_lines(const std::string& head, bool strict, std::vector<Header>* out) {
  // One pass per line over the bytes of the head: the checks and the split into name and
  // value read the head in place; only the kept name and value are copied.
  size_t eol = find_crlf(head, 0);
  size_t pos = eol == std::string::npos ? head.size() : eol + 2;
  const char* d = head.data();
  // Room for every line at once (a line per header at most) instead of regrowing the vector,
  // and for the one header a server adds before passing a request on (X-Kube32-Pod).
  size_t lines = 0;
  for (const char* p = d + pos; (p = static_cast<const char*>(std::memchr(p, '\n', head.size() - static_cast<size_t>(p - d))));
       ++p)
    ++lines;
  out->reserve(out->size() + lines + 2);
  while (pos < head.size()) {
    size_t e = find_crlf(head, pos);
    size_t end = e == std::string::npos ? head.size() : e;
    size_t next = e == std::string::npos ? head.size() : e + 2;
    const void* c = std::memchr(d + pos, ':', end - pos);
    size_t colon = c ? static_cast<size_t>(static_cast<const char*>(c) - d) : std::string::npos;
    bool bad = colon == std::string::npos || !is_token(d + pos, colon - pos) || has_ctl(d + colon + 1, end - colon - 1);
    if (bad) {
      if (strict) return false;
      pos = next;
      continue;
    }
    size_t vb = colon + 1, ve = end;
    while (vb < ve && is_ows(d[vb])) ++vb;
    while (ve > vb && is_ows(d[ve - 1])) --ve;
    out->emplace_back();
    out->back().name.assign(d + pos, colon - pos);
    out->back().value.assign(d + vb, ve - vb);
    pos = next;
  }
  return true;
}

bool parse_chunk_size(const std::string& line, uint64_t* size) {
  size_t end = line.find(';');
  if (end == std::string::npos) end = line.size();
  if (end == 0 || end > 8) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < end; ++i) {
    const char c = line[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  *size = v;
  return true;
}

std::vector<Header> parse_query(const std::string& query) {
  std::vector<Header> out;
  if (query.empty()) return out;
  for (const auto& part : text::split(query, '&')) {
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string::npos) out.push_back({text::url_decode(part), ""});
    else out.push_back({text::url_decode(part.substr(0, eq)), text::url_decode(part.substr(eq + 1))});
  }
  return out;
}

std::string Request::query_param(const std::string& key, bool* present) const {
  for (const auto& kv : parse_query(query)) {
    if (kv.name == key) {
      if (present) *present = true;
      return kv.value;
    }
  }
  if (present) *present = false;
  return std::string();
}

void ResponseWriter::head(int status, const char* content_type, const std::string* length, size_t body_size, std::string* out) {
  // Measured, sized once, then copied piece by piece into place: no regrowth, no temporaries.
  const char* reason = reason_phrase(status);
  const size_t reason_len = std::strlen(reason);
  const size_t type_len = std::strlen(content_type);
  char code[12];
  char* code_end = code + sizeof code;
  char* code_p = code_end;
  unsigned u = status < 0 ? 0u : static_cast<unsigned>(status);
  do {
    *--code_p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  const size_t code_len = static_cast<size_t>(code_end - code_p);
  static const char kType[] = "Content-Type: ";
  static const char kLength[] = "Content-Length: ";
  static const char kChunked[] = "Transfer-Encoding: chunked\r\n";
  static const char kKeep[] = "Connection: keep-alive\r\n\r\n";
  static const char kClose[] = "Connection: close\r\n\r\n";
  size_t n = 9 + code_len + 1 + reason_len + 2;
  if (type_len) n += sizeof kType - 1 + type_len + 2;
  n += length ? sizeof kLength - 1 + length->size() + 2 : sizeof kChunked - 1;
  for (const auto& e : extra_) n += e.name.size() + 2 + e.value.size() + 2;
  n += keep_alive_ ? sizeof kKeep - 1 : sizeof kClose - 1;
  out->clear();
  out->reserve(n + body_size);
  out->resize(n);
  char* p = &(*out)[0];
  auto put = [&p](const char* s, size_t len) {
    std::memcpy(p, s, len);
    p += len;
  };
  put("HTTP/1.1 ", 9);
  put(code_p, code_len);
  put(" ", 1);
  put(reason, reason_len);
  put("\r\n", 2);
  if (type_len) {
    put(kType, sizeof kType - 1);
    put(content_type, type_len);
    put("\r\n", 2);
  }
  if (length) {
    put(kLength, sizeof kLength - 1);
    put(length->data(), length->size());
    put("\r\n", 2);
  } else {
    put(kChunked, sizeof kChunked - 1);
  }
  for (const auto& e : extra_) {
    put(e.name.data(), e.name.size());
    put(": ", 2);
    put(e.value.data(), e.value.size());
    put("\r\n", 2);
  }
  if (keep_alive_) put(kKeep, sizeof kKeep - 1);
  else put(kClose, sizeof kClose - 1);
}

bool ResponseWriter::switch_protocols(const std::vector<Header>& headers) {
  if (started_) return false;
  started_ = true;
  status_ = 101;
  keep_alive_ = false;
  std::string out = "HTTP/1.1 101 Switching Protocols\r\n";
  for (const auto& h : headers) out += h.name + ": " + h.value + "\r\n";
  out += "\r\n";
  if (!conn_->send_all(out.data(), out.size())) broken_ = true;
  return !broken_;
}

bool ResponseWriter::send(int status, const char* content_type, const char* body, size_t body_len) {
  if (started_) return false;
  started_ = true;
  status_ = status;
  std::string len = text::to_string(static_cast<int64_t>(body_len));
  const bool join = !head_only_ && body_len <= K32_SEND_JOIN_MAX;
  std::string out;
  head(status, content_type, &len, join ? body_len : 0, &out);
  if (join) out.append(body, body_len);
  body_bytes_ = body_len;
  if (!conn_->send_all(out.data(), out.size())) broken_ = true;
  if (!broken_ && !head_only_ && !join && !conn_->send_all(body, body_len)) broken_ = true;
  return !broken_;
}

bool ResponseWriter::begin_stream(int status, const std::string& content_type) {
  if (started_) return false;
  started_ = true;
  chunked_ = true;
  status_ = status;
  std::string out;
  head(status, content_type.c_str(), nullptr, 0, &out);
  if (!conn_->send_all(out.data(), out.size())) broken_ = true;
  return !broken_;
}

namespace {
// A chunk's size line ("<hex>\r\n") written backwards from `end`; returns where it starts.
// By hand: no snprintf per chunk.
char* chunk_size_line(size_t n, char* end) {
  char* p = end;
  *--p = '\n';
  *--p = '\r';
  do {
    *--p = "0123456789abcdef"[n & 15];
    n >>= 4;
  } while (n);
  return p;
}
}  // namespace

bool ResponseWriter::write_chunk_in_place(std::string* data) {
  if (!chunked_ || broken_) return false;
  if (data->empty() || head_only_) return true;
  char size[2 * sizeof(size_t) + 2];
  char* end = size + sizeof size;
  char* p = chunk_size_line(data->size(), end);
  body_bytes_ += data->size();
  data->insert(0, p, static_cast<size_t>(end - p));
  data->append("\r\n", 2);
  if (!conn_->send_all(data->data(), data->size())) broken_ = true;
  return !broken_;
}

bool ResponseWriter::write_chunk(const std::string& data) {
  if (!chunked_ || broken_) return false;
  if (data.empty() || head_only_) return true;
  char size[2 * sizeof(size_t) + 2];
  char* end = size + sizeof size;
  char* p = chunk_size_line(data.size(), end);
  std::string out;
  out.reserve(static_cast<size_t>(end - p) + data.size() + 2);
  out.append(p, static_cast<size_t>(end - p));
  out += data;
  out += "\r\n";
  body_bytes_ += data.size();
  if (!conn_->send_all(out.data(), out.size())) broken_ = true;
  return !broken_;
}

bool ResponseWriter::end_stream() {
  if (!chunked_ || broken_) return false;
  if (head_only_) return true;
  if (!conn_->send_all("0\r\n\r\n", 5)) broken_ = true;
  return !broken_;
}

}  // namespace http
}  // namespace k32
