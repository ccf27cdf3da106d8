#include "core/calls/http_exchange.h"

#include <cerrno>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/calls/call_headers.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"

namespace k32 {
namespace calls {

namespace {

// Receives wait at most this long at a time so a stopped pod ends its call promptly.
constexpr uint32_t kCancelPollMs = 100;

class Reader {
 public:
  Reader(CallStream& s, const ExchangeLimits& lim) : s_(s), lim_(lim) {}

  // Appends what arrives to buf_; K32 code on failure, 0 on data, 1 on orderly close.
  int32_t fill() {
    for (;;) {
      if (lim_.cancel && lim_.cancel->load()) return K32_ERR_IO;
      if (lim_.abandoned && lim_.abandoned()) return K32_ERR_IO;
      uint64_t now = port::monotonic_ms();
      if (now >= lim_.deadline_ms) return K32_ERR_TIMEOUT;
      uint64_t left = lim_.deadline_ms - now;
      uint32_t wait = left < kCancelPollMs ? static_cast<uint32_t>(left) : kCancelPollMs;
      // Received straight into the buffer: a stack copy would cost the calling thread (a TLS
      // session's, among others) a chunk of its budget.
      size_t had = buf_.size();
      buf_.resize(had + K32_CALL_READ_CHUNK);
      int n = s_.recv(&buf_[had], K32_CALL_READ_CHUNK, wait);
      buf_.resize(had + (n > 0 ? static_cast<size_t>(n) : 0));
      if (n > 0) return 0;
      if (n == 0) return 1;
      if (n == -ETIMEDOUT) continue;
      return K32_ERR_IO;
    }
  }

  // Reads through the blank line that ends a head of at most `max` bytes.
  int32_t read_head(std::string* head, size_t max) {
    for (;;) {
      size_t end = buf_.find("\r\n\r\n", pos_);
      if (end != std::string::npos) {
        if (end + 4 - pos_ > max) return K32_ERR_IO;
        head->assign(buf_, pos_, end - pos_);
        pos_ = end + 4;
        return 0;
      }
      if (buf_.size() - pos_ > max) return K32_ERR_IO;
      int32_t rc = fill();
      if (rc == 1) return K32_ERR_IO;  // closed before the head was complete
      if (rc < 0) return rc;
    }
  }

  // Reads one CRLF line (chunk sizes, trailers) of at most 256 bytes.
  int32_t read_line(std::string* line) {
    for (;;) {
      size_t end = buf_.find("\r\n", pos_);
      if (end != std::string::npos) {
        line->assign(buf_, pos_, end - pos_);
        pos_ = end + 2;
        return 0;
      }
      if (buf_.size() - pos_ > 256) return K32_ERR_IO;
      int32_t rc = fill();
      if (rc == 1) return K32_ERR_IO;
      if (rc < 0) return rc;
    }
  }

  // Delivers up to n bytes (or until close when n is SIZE_MAX) to `out`.
  int32_t body(size_t n, bool until_close, const std::function<int32_t(const char*, size_t)>& out) {
    while (until_close || n > 0) {
      if (pos_ == buf_.size()) {
        buf_.clear();
        pos_ = 0;
        int32_t rc = fill();
        if (rc == 1) return until_close ? 0 : K32_ERR_IO;
        if (rc < 0) return rc;
      }
      size_t take = buf_.size() - pos_;
      if (!until_close && take > n) take = n;
      int32_t rc = out(buf_.data() + pos_, take);
      pos_ += take;
      if (!until_close) n -= take;
      if (rc != 0) return rc;
    }
    return 0;
  }

  void compact() {
    if (pos_ > 4096) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
  }

 private:
  CallStream& s_;
  const ExchangeLimits& lim_;
  std::string buf_;
  size_t pos_ = 0;
};

bool parse_status_line(const std::string& line, int* status) {
  // "HTTP/1.1 200 OK" (reason optional)
  if (line.compare(0, 7, "HTTP/1.") != 0 || line.size() < 12 || line[8] != ' ') return false;
  for (int i = 9; i < 12; ++i)
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return false;
  if (line.size() > 12 && line[12] != ' ') return false;
  *status = std::atoi(line.substr(9, 3).c_str());
  return *status >= 100 && *status <= 599;
}

const std::string* find_header(const std::vector<http::Header>& hs, const char* name) {
  for (const auto& h : hs)
    if (header_name_is(h.name, name)) return &h.value;
  return nullptr;
}

bool contains_token_ci(const std::string& v, const char* tok) {
  std::string low;
  for (char c : v) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return low.find(tok) != std::string::npos;
}

}  // namespace

bool valid_method(const std::string& m) {
  if (m.empty() || m.size() > 16) return false;
  for (char c : m)
    if (!std::isupper(static_cast<unsigned char>(c))) return false;
  return true;
}

int32_t errno_to_k32(int err) {
  if (err == -ECONNREFUSED) return K32_ERR_CONNREFUSED;
  if (err == -ETIMEDOUT) return K32_ERR_TIMEOUT;
  if (err == -EHOSTUNREACH || err == -ENETUNREACH) return K32_ERR_HOSTUNREACH;
  return K32_ERR_IO;
}

std::string build_request_head(const std::string& method, const std::string& target, const std::string& host_header,
                               const std::vector<http::Header>& headers, size_t body_len, bool keep_alive) {
  std::string h = method + " " + target + " HTTP/1.1\r\nHost: " + host_header + "\r\n";
  for (const auto& x : headers) h += x.name + ": " + x.value + "\r\n";
  if (body_len > 0 || method == "POST" || method == "PUT" || method == "PATCH")
    h += "Content-Length: " + std::to_string(body_len) + "\r\n";
  h += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  return h;
}

ExchangeResult http_exchange(CallStream& s, const std::string& request_head, const uint8_t* body, size_t body_len,
                             bool head_request, const ExchangeLimits& lim, const BodySink& sink) {
  ExchangeResult r;
  if (!s.send_all(request_head.data(), request_head.size()) || (body_len > 0 && !s.send_all(body, body_len))) {
    r.rc = K32_ERR_IO;
    return r;
  }
  Reader rd(s, lim);
  std::string head;
  int status = 0;
  for (;;) {  // interim 1xx responses are skipped
    int32_t rc = rd.read_head(&head, lim.head_max);
    if (rc != 0) {
      r.rc = rc;
      return r;
    }
    size_t eol = head.find("\r\n");
    if (!parse_status_line(head.substr(0, eol), &status)) {
      r.rc = K32_ERR_IO;
      return r;
    }
    if (status >= 200) break;
  }
  r.status = status;
  http::parse_header_lines(head, false, &r.headers);
  if (lim.on_head && !lim.on_head(status, r.headers)) {
    r.rc = K32_ERR_IO;
    return r;
  }

  size_t delivered = 0;
  bool too_big = false;
  auto deliver = [&](const char* d, size_t n) -> int32_t {
    size_t room = lim.body_limit - delivered;
    size_t take = n < room ? n : room;
    if (take > 0 && !sink(d, take)) return K32_ERR_IO;
    delivered += take;
    if (n > room) {
      too_big = true;  // the first body_limit bytes were kept; stop reading now
      return K32_ERR_TOOBIG;
    }
    return 0;
  };

  int32_t rc = 0;
  const std::string* te = find_header(r.headers, "Transfer-Encoding");
  const std::string* cl = find_header(r.headers, "Content-Length");
  if (head_request || status == 204 || status == 304) {
    rc = 0;
  } else if (te && contains_token_ci(*te, "chunked")) {
    for (;;) {
      std::string line;
      rc = rd.read_line(&line);
      if (rc != 0) break;
      uint64_t n = 0;
      if (!http::parse_chunk_size(line, &n)) {
        rc = K32_ERR_IO;
        break;
      }
      if (n == 0) {
        do {  // trailers up to the blank line
          rc = rd.read_line(&line);
        } while (rc == 0 && !line.empty());
        break;
      }
      rc = rd.body(static_cast<size_t>(n), false, deliver);
      if (rc != 0) break;
      rc = rd.read_line(&line);
      if (rc != 0) break;
      if (!line.empty()) {  // the data must end where its size said
        rc = K32_ERR_IO;
        break;
      }
      rd.compact();
    }
  } else if (cl) {
    uint64_t n = 0;  // digits only: strtoull would also take "+5", " 5" and "-1"
    if (!text::parse_uint(*cl, SIZE_MAX, &n)) rc = K32_ERR_IO;
    else rc = rd.body(static_cast<size_t>(n), false, deliver);
  } else {
    rc = rd.body(0, true, deliver);
  }
  r.rc = too_big ? K32_ERR_TOOBIG : (rc != 0 ? rc : status);
  return r;
}

}  // namespace calls
}  // namespace k32
