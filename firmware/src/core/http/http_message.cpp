#include "core/http/http_message.h"

#include <cstdio>

#include "core/util/text.h"

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

const std::string* Request::header(const char* name) const {
  for (const auto& h : headers)
    if (text::iequals(h.name, name)) return &h.value;
  return nullptr;
}

namespace {
// RFC 9110 token characters: what a method and a header name may be made of.
bool is_token(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (c <= 0x20 || c >= 0x7f) return false;
    switch (c) {
      case '(': case ')': case '<': case '>': case '@': case ',': case ';': case ':': case '\\':
      case '"': case '/': case '[': case ']': case '?': case '=': case '{': case '}':
        return false;
      default: break;
    }
  }
  return true;
}

// Control characters (tab aside) end a header line or a request line early in some parser
// down the line; a relay that passed them on would let a client write its own headers.
bool has_ctl(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return true;
  return false;
}
}  // namespace

bool parse_request_head(const std::string& head, Request* req) {
  size_t eol = head.find("\r\n");
  std::string line = head.substr(0, eol);
  auto parts = text::split(line, ' ');
  if (parts.size() != 3 || !is_token(parts[0]) || parts[1].empty() || has_ctl(parts[1])) return false;
  if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0") return false;
  req->method = parts[0];
  req->target = parts[1];
  req->version = parts[2];
  size_t q = req->target.find('?');
  std::string raw_path = req->target.substr(0, q);
  if (raw_path.empty() || raw_path[0] != '/') return false;
  // '+' is a space only in queries: the path is percent-decoded alone.
  req->path = text::percent_decode(raw_path);
  req->query = q == std::string::npos ? "" : req->target.substr(q + 1);
  if (!parse_header_lines(head, true, &req->headers)) return false;
  // Two framings for one body are how requests get smuggled past a relay: refuse both a
  // Transfer-Encoding with a Content-Length and Content-Lengths that disagree.
  const std::string* cl = req->header("Content-Length");
  if (cl && req->header("Transfer-Encoding")) return false;
  for (const auto& h : req->headers)
    if (cl && text::iequals(h.name, "Content-Length") && h.value != *cl) return false;
  return true;
}

bool parse_header_lines(const std::string& head, bool strict, std::vector<Header>* out) {
  size_t eol = head.find("\r\n");
  size_t pos = eol == std::string::npos ? head.size() : eol + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    std::string h = head.substr(pos, e == std::string::npos ? std::string::npos : e - pos);
    pos = e == std::string::npos ? head.size() : e + 2;
    size_t colon = h.find(':');
    bool bad = colon == std::string::npos || !is_token(h.substr(0, colon)) || has_ctl(h.substr(colon + 1));
    if (bad) {
      if (strict) return false;
      continue;
    }
    out->push_back({h.substr(0, colon), text::trim(h.substr(colon + 1))});
  }
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

std::string ResponseWriter::head(int status, const std::string& content_type, const std::string* length) {
  char line[64];
  std::snprintf(line, sizeof line, "HTTP/1.1 %d %s\r\n", status, reason_phrase(status));
  std::string h = line;
  if (!content_type.empty()) h += "Content-Type: " + content_type + "\r\n";
  if (length) h += "Content-Length: " + *length + "\r\n";
  else h += "Transfer-Encoding: chunked\r\n";
  for (const auto& e : extra_) h += e.name + ": " + e.value + "\r\n";
  h += keep_alive_ ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  h += "\r\n";
  return h;
}

bool ResponseWriter::send(int status, const std::string& content_type, const std::string& body) {
  if (started_) return false;
  started_ = true;
  status_ = status;
  std::string len = text::to_string(static_cast<int64_t>(body.size()));
  std::string out = head(status, content_type, &len);
  if (!head_only_) out += body;
  body_bytes_ = body.size();
  if (!conn_->send_all(out.data(), out.size())) broken_ = true;
  return !broken_;
}

bool ResponseWriter::begin_stream(int status, const std::string& content_type) {
  if (started_) return false;
  started_ = true;
  chunked_ = true;
  status_ = status;
  std::string out = head(status, content_type, nullptr);
  if (!conn_->send_all(out.data(), out.size())) broken_ = true;
  return !broken_;
}

bool ResponseWriter::write_chunk(const std::string& data) {
  if (!chunked_ || broken_) return false;
  if (data.empty() || head_only_) return true;
  char size[2 * sizeof(size_t) + 3];  // hex digits, CRLF, NUL
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out = size;
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
