// Buffered reading from a socket: heads up to a limit, exact-length and chunked bodies.
#pragma once
#include <string>

#include "core/http/conn.h"

namespace k32 {
namespace http {

// NoMemory: the heap could not hold the next bytes (the read stops, nothing is lost but the
// message, which the caller refuses or retries), never an allocation that would stop the node.
enum class ReadStatus { Ok, Closed, Timeout, TooLarge, Malformed, Error, NoMemory };

class ConnReader {
 public:
  explicit ConnReader(Conn* c) : conn_(c) {}
  // Reads through the blank line ending a head; the head (without it) goes to *head.
  ReadStatus read_head(std::string* head, size_t max_bytes, uint32_t timeout_ms);
  // As read_head, but the whole head must be in by `deadline_ms` (port::monotonic_ms), however
  // the bytes trickle in: a client sending one byte a second cannot hold the connection.
  ReadStatus read_head_by(std::string* head, size_t max_bytes, uint64_t deadline_ms);
  // Waits up to timeout_ms until at least one byte is buffered.
  ReadStatus wait_data(uint32_t timeout_ms);
  ReadStatus read_exact(size_t n, std::string* out, uint32_t timeout_ms);
  // Decodes a chunked body straight into *out (no second copy of a chunk); fails with TooLarge
  // past max_bytes and NoMemory when the heap cannot hold the body's next chunk.
  ReadStatus read_chunked(std::string* out, size_t max_bytes, uint32_t timeout_ms);
  // One chunk of a chunked body, for a reader that passes the body on as it arrives: its data
  // into *out (empty with *last set for the final chunk, whose trailers are read and dropped).
  // The size line must be hex digits only (an extension after ';' is ignored); a chunk over
  // max_bytes is TooLarge before any of it is read.
  ReadStatus read_chunk(std::string* out, size_t max_bytes, uint32_t timeout_ms, bool* last);
  // Reads one CRLF-terminated line (without the CRLF).
  ReadStatus read_line(std::string* line, size_t max_bytes, uint32_t timeout_ms);
  // Whatever is buffered plus what arrives until close (for Connection: close bodies).
  ReadStatus read_to_close(std::string* out, size_t max_bytes, uint32_t timeout_ms);
  bool has_buffered() const { return pos_ < buf_.size(); }
  // The node's own clients read replies of the node's API server and pod servers: a length
  // they announce (Content-Length, a chunk's size, both bounded by the caller's max_bytes) is
  // given its room at once, checked against the heap, so a body is allocated once instead of
  // doubling as it arrives. Off by default: a server facing unknown peers grows a body only as
  // its bytes arrive (a client announcing much and sending little holds what it sent).
  void reserve_announced() { reserve_announced_ = true; }
  // Until clear_deadline: no read waits past `deadline_ms` (port::monotonic_ms), whatever
  // timeout it was given, and reads after it end with Timeout. Bounds a body that trickles.
  void set_deadline(uint64_t deadline_ms) { deadline_ms_ = deadline_ms; }
  void clear_deadline() { deadline_ms_ = 0; }

 private:
  ReadStatus fill(uint32_t timeout_ms);
  // Appends n bytes to *out from the buffer and the socket (read_exact's and read_chunk's body).
  ReadStatus append_exact(size_t n, std::string* out, uint32_t timeout_ms);
  // read_chunk appending to *out (read_chunked reads every chunk into the body this way).
  ReadStatus append_chunk(std::string* out, size_t max_bytes, uint32_t timeout_ms, bool* last);
  // timeout_ms per read, or (deadline_ms != 0) one deadline for the whole head.
  ReadStatus read_head_until(std::string* head, size_t max_bytes, uint32_t timeout_ms, uint64_t deadline_ms);
  Conn* conn_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t deadline_ms_ = 0;
  bool reserve_announced_ = false;
  bool chunk_room_ = false;  // append_exact is reading a chunk (room for what follows it)
};

}  // namespace http
}  // namespace k32
