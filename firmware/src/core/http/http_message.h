// HTTP/1.1 request model and response writer shared by every server on a node
// (API, ingress, pod server) and the client.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/http/conn.h"

namespace k32 {
namespace http {

struct Header {
  std::string name;
  std::string value;
};

const char* reason_phrase(int status);

struct Request {
  std::string method;
  std::string target;  // as received: path + "?" + query
  std::string path;    // percent-decoded path
  std::string query;   // raw query string
  std::string version;
  std::vector<Header> headers;
  std::string body;
  std::string peer_ip;
  std::string local_ip;

  // Case-insensitive header lookup; nullptr when absent.
  const std::string* header(const char* name) const;
  // Decoded value of a query parameter; `present` tells an empty value from absence.
  std::string query_param(const std::string& key, bool* present = nullptr) const;
};

// Parses a request head (request line + header lines, without the blank line that ends it):
// false when the request line is not "METHOD /path[?query] HTTP/1.x" or a header is malformed.
bool parse_request_head(const std::string& head, Request* out);

// Parses the header lines of a message head (everything after its first line) into *out.
// Strict mode refuses lines without a name or with a space in the name (requests);
// lenient mode skips such lines (responses from upstreams we relay).
bool parse_header_lines(const std::string& head, bool strict, std::vector<Header>* out);

// Parses "a=b&c=d" into decoded pairs.
std::vector<Header> parse_query(const std::string& query);

// The size on a chunk's line, "<hex digits>[;extension]" of at most 8 digits: strtoul alone
// would also take "-1", "+5", " 5" and "0x5", which the sender may have meant differently
// from a relay or server that reads it. False for anything else.
bool parse_chunk_size(const std::string& line, uint64_t* size);

class ResponseWriter {
 public:
  ResponseWriter(Conn* c, bool head_only, bool keep_alive) : conn_(c), head_only_(head_only), keep_alive_(keep_alive) {}

  // By value: a literal becomes one string, moved into place.
  void add_header(std::string name, std::string value) {
    if (extra_.empty()) extra_.reserve(kHeadersAhead);  // a hint: one allocation for a typical response
    extra_.push_back({std::move(name), std::move(value)});
  }
  // A complete response with Content-Length.
  bool send(int status, const std::string& content_type, const std::string& body) {
    return send(status, content_type.c_str(), body.data(), body.size());
  }
  // The same from bytes held elsewhere (a file in flash) and a fixed type: no copies into
  // strings first.
  bool send(int status, const char* content_type, const char* body, size_t len);
  // A streamed (chunked) response: begin, any number of chunks, end.
  bool begin_stream(int status, const std::string& content_type);
  bool write_chunk(const std::string& data);
  // The same, framing `data` itself (its size line put in front, CRLF behind) instead of
  // copying it into a second buffer; `data` holds the sent chunk afterwards.
  bool write_chunk_in_place(std::string* data);
  bool end_stream();

  // 101 Switching Protocols with exactly these headers (no Content-Length, no keep-alive
  // Connection header: the upgrade's own "Connection: Upgrade" must be the only one, or Go
  // clients drop it); the connection then belongs to the caller and closes after it.
  bool switch_protocols(const std::vector<Header>& headers);
  bool started() const { return started_; }
  bool keep_alive() const { return keep_alive_ && !broken_; }
  void close_after() { keep_alive_ = false; }
  port::Socket socket() const { return conn_->socket(); }
  Conn* conn() const { return conn_; }
  int status() const { return status_; }
  uint64_t body_bytes() const { return body_bytes_; }

 private:
  // The status line and headers into *out, with room reserved for body_size more bytes.
  void head(int status, const char* content_type, const std::string* length, size_t body_size, std::string* out);
  Conn* conn_;
  bool head_only_;
  bool keep_alive_;
  bool started_ = false;
  bool chunked_ = false;
  bool broken_ = false;
  int status_ = 0;
  uint64_t body_bytes_ = 0;
  std::vector<Header> extra_;
  static constexpr size_t kHeadersAhead = 6;
};

}  // namespace http
}  // namespace k32
