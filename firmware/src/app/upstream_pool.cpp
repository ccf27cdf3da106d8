#include "app/upstream_pool.h"

#include <cstdlib>

#include "core/http/conn_reader.h"
#include "core/http/internal_headers.h"
#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace app {

namespace {
constexpr uint32_t kUpstreamTimeoutMs = K32_UPSTREAM_READ_MS;
constexpr size_t kUpstreamHeadMax = K32_HTTP_CLIENT_HEAD_MAX;

bool hop_by_hop(const std::string& name) {
  static const char* kHop[] = {
      "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "content-length", "host"};
  std::string n = text::lower(name);
  for (const char* h : kHop)
    if (n == h) return true;
  return false;
}
}  // namespace

bool UpstreamPool::relay(const std::string& ip, uint16_t port, const http::Request& req, const std::vector<http::Header>& extra,
                         http::ResponseWriter& w) {
  std::string key = ip + ":" + text::to_string(port);
  std::string head = req.method + " " + req.target + " HTTP/1.1\r\n";
  const std::string* host = req.header("Host");
  head += "Host: " + (host ? *host : key) + "\r\n";
  for (const auto& h : req.headers)
    if (!http::is_internal_header(h.name) && !hop_by_hop(h.name)) head += h.name + ": " + h.value + "\r\n";
  for (const auto& h : extra) head += h.name + ": " + h.value + "\r\n";
  head += "Content-Length: " + text::to_string(static_cast<int64_t>(req.body.size())) + "\r\n\r\n";

  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = true;
    port::Socket s = attempt == 0 ? idle_.take(key) : port::kNoSocket;
    if (s == port::kNoSocket) {
      reused = false;
      int err = 0;
      s = port::tcp_connect(ip.c_str(), port, K32_UPSTREAM_CONNECT_MS, &err);
      if (s == port::kNoSocket) return false;
    }
    http::Conn conn(s);
    if (!conn.send_all(head.data(), head.size()) || !conn.send_all(req.body.data(), req.body.size())) {
      port::tcp_close(s);
      if (reused) continue;
      return false;
    }
    http::ConnReader reader(&conn);
    std::string rhead;
    http::ReadStatus st;
    for (;;) {
      st = reader.read_head(&rhead, kUpstreamHeadMax, kUpstreamTimeoutMs);
      if (st == http::ReadStatus::Ok && rhead.size() > 12 && rhead.compare(9, 1, "1") == 0) continue;  // 1xx
      break;
    }
    if (st != http::ReadStatus::Ok) {
      port::tcp_close(s);
      // A pooled connection the worker had already closed: try once on a fresh one.
      if (reused && st == http::ReadStatus::Closed) continue;
      return false;
    }
    uint64_t status = 502;
    if (rhead.size() >= 12) text::parse_uint(rhead.substr(9, 3), 999, &status);
    bool chunked = false, has_len = false, upstream_close = false;
    uint64_t len = 0;
    std::string content_type;
    std::vector<http::Header> headers;
    http::parse_header_lines(rhead, false, &headers);
    for (const auto& h : headers) {
      const std::string& name = h.name;
      const std::string& value = h.value;
      std::string lname = text::lower(name);
      if (lname == "content-type") content_type = value;
      else if (lname == "transfer-encoding") chunked = text::lower(value).find("chunked") != std::string::npos;
      else if (lname == "content-length") has_len = text::parse_uint(value, UINT64_MAX, &len);
      else if (lname == "connection") upstream_close = text::iequals(value, "close");
      if (!hop_by_hop(name) && lname != "content-type") w.add_header(name, value);
    }
    // Relay the body as it arrives, re-framed as chunks towards the client.
    w.begin_stream(static_cast<int>(status), content_type);
    bool ok = true;
    if (req.method == "HEAD" || status == 204 || status == 304) {
    } else if (chunked) {
      // One chunk at a time, each at most a pod's whole body (what a pod server sends in one).
      std::string part;
      for (;;) {
        bool last = false;
        if (reader.read_chunk(&part, K32_RELAY_CLOSE_BODY_MAX, kUpstreamTimeoutMs, &last) != http::ReadStatus::Ok) {
          ok = false;
          break;
        }
        if (last) break;
        if (!w.write_chunk(part)) {
          ok = false;
          break;
        }
      }
    } else if (has_len) {
      uint64_t left = len;
      while (left > 0) {
        std::string part;
        size_t take_n = left > K32_UPSTREAM_READ_CHUNK ? K32_UPSTREAM_READ_CHUNK : static_cast<size_t>(left);
        if (reader.read_exact(take_n, &part, kUpstreamTimeoutMs) != http::ReadStatus::Ok) {
          ok = false;
          break;
        }
        left -= take_n;
        if (!w.write_chunk(part)) {
          ok = false;
          break;
        }
      }
    } else {
      std::string rest;
      reader.read_to_close(&rest, K32_RELAY_CLOSE_BODY_MAX, kUpstreamTimeoutMs);
      w.write_chunk(rest);
      upstream_close = true;
    }
    w.end_stream();
    if (ok && !upstream_close && !reader.has_buffered()) idle_.give(key, s);
    else port::tcp_close(s);
    return true;
  }
  return false;
}

}  // namespace app
}  // namespace k32
