#include "core/http/http_client.h"

#include <cerrno>

#include "core/http/conn_reader.h"
#include "core/util/text.h"
#include "port.h"
#include "k32_board.h"

namespace k32 {
namespace http {

const std::string* ClientResponse::header(const char* name) const {
  for (const auto& h : headers)
    if (text::iequals(h.name, name)) return &h.value;
  return nullptr;
}

bool parse_base_url(const std::string& url, Endpoint* out) {
  if (!text::starts_with(url, "http://")) return false;
  std::string rest = url.substr(7);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos) {
    out->host = rest;
    out->port = 80;
    return !rest.empty();
  }
  uint64_t port = 0;
  if (!text::parse_uint(rest.substr(colon + 1), 65535, &port) || port == 0) return false;
  out->host = rest.substr(0, colon);
  out->port = static_cast<uint16_t>(port);
  return !out->host.empty();
}

int request(const Endpoint& ep, const std::string& method, const std::string& target, const std::vector<Header>& headers,
            const std::string& body, uint32_t timeout_ms, size_t max_body, ClientResponse* out) {
  int err = 0;
  port::Socket s = port::tcp_connect(ep.host.c_str(), ep.port, timeout_ms, &err);
  if (s == port::kNoSocket) return err ? err : -EIO;
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: " + ep.host + ":" + text::to_string(ep.port) +
                    "\r\nConnection: close\r\n";
  for (const auto& h : headers) req += h.name + ": " + h.value + "\r\n";
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
    req += "Content-Length: " + text::to_string(static_cast<int64_t>(body.size())) + "\r\n";
  req += "\r\n";
  req += body;
  Conn conn(s);
  if (!conn.send_all(req.data(), req.size())) {
    port::tcp_close(s);
    return -EIO;
  }
  ConnReader reader(&conn);
  reader.reserve_announced();  // the node's own servers: a body allocated once (conn_reader.h)
  std::string head;
  ReadStatus st;
  for (;;) {
    st = reader.read_head(&head, K32_HTTP_CLIENT_HEAD_MAX, timeout_ms);
    if (st != ReadStatus::Ok) break;
    // Interim 1xx responses are skipped.
    if (head.size() >= 12 && head.compare(9, 1, "1") == 0) continue;
    break;
  }
  if (st != ReadStatus::Ok) {
    port::tcp_close(s);
    return st == ReadStatus::Timeout ? -ETIMEDOUT : st == ReadStatus::NoMemory ? -ENOMEM : -EIO;
  }
  out->headers.clear();
  size_t eol = head.find("\r\n");
  std::string status_line = head.substr(0, eol);
  if (status_line.size() < 12 || !text::starts_with(status_line, "HTTP/1.")) {
    port::tcp_close(s);
    return -EPROTO;
  }
  uint64_t code = 0;
  text::parse_uint(status_line.substr(9, 3), 999, &code);
  out->status = static_cast<int>(code);
  parse_header_lines(head, false, &out->headers);
  const std::string* te = out->header("Transfer-Encoding");
  const std::string* cl = out->header("Content-Length");
  if (method == "HEAD" || out->status == 204 || out->status == 304) {
    st = ReadStatus::Ok;
  } else if (te && text::iequals(*te, "chunked")) {
    st = reader.read_chunked(&out->body, max_body, timeout_ms);
  } else if (cl) {
    uint64_t n = 0;
    if (!text::parse_uint(*cl, max_body, &n)) st = ReadStatus::TooLarge;
    else st = reader.read_exact(static_cast<size_t>(n), &out->body, timeout_ms);
  } else {
    st = reader.read_to_close(&out->body, max_body, timeout_ms);
  }
  port::tcp_close(s);
  if (st == ReadStatus::Timeout) return -ETIMEDOUT;
  if (st == ReadStatus::TooLarge) return -EFBIG;
  if (st == ReadStatus::NoMemory) return -ENOMEM;  // the caller retries; the node goes on
  if (st != ReadStatus::Ok) return -EIO;
  return 0;
}

}  // namespace http
}  // namespace k32
