// One chunk at a time from a chunked body, as the ingress relay and a worker's channel stream
// read them (over a real socket pair): plain hex sizes only, a chunk over the reader's limit
// refused before its bytes are read (a peer announcing "ffffffff" cannot make the node
// buffer without end), extensions ignored, the last chunk's trailers read and dropped. A body
// the heap cannot hold ends the read with NoMemory (the node's clients retry) instead of an
// allocation that stops the node, and reads again once the heap has room.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "core/http/conn_reader.h"
#include "port.h"

using namespace k32;

namespace {

// A reader over a socket pair whose other end sent `bytes` and closed.
struct Peer {
  explicit Peer(const std::string& bytes) {
    CHECK(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(port::tcp_send_all(sv[1], bytes.data(), bytes.size()));
    ::shutdown(sv[1], SHUT_WR);
  }
  ~Peer() {
    ::close(sv[0]);
    ::close(sv[1]);
  }
  int sv[2];
};

http::ReadStatus one(const std::string& bytes, size_t max, std::string* out, bool* last) {
  Peer p(bytes);
  http::Conn conn(p.sv[0]);
  http::ConnReader r(&conn);
  return r.read_chunk(out, max, 1000, last);
}

}  // namespace

int main() {
  std::string out;
  bool last = true;
  CHECK(one("5\r\nhello\r\n", 16, &out, &last) == http::ReadStatus::Ok);
  CHECK_EQ(out, std::string("hello"));
  CHECK(!last);
  CHECK(one("5;name=value\r\nhello\r\n", 16, &out, &last) == http::ReadStatus::Ok && out == "hello");
  CHECK(one("0\r\nX-Trailer: 1\r\n\r\n", 16, &out, &last) == http::ReadStatus::Ok && last && out.empty());

  // Past the limit: refused at the size line, whatever follows.
  CHECK(one("11\r\n" + std::string(17, 'x') + "\r\n", 16, &out, &last) == http::ReadStatus::TooLarge);
  CHECK(one("ffffffff\r\n", 1 << 20, &out, &last) == http::ReadStatus::TooLarge);
  CHECK(out.empty());

  // Sizes a lenient parser takes differently from the peer's intent.
  for (const char* bad : {"-1\r\n", "+5\r\n", " 5\r\n", "0x5\r\n", "\r\n", "123456789\r\n", "5 \r\n"})
    CHECK(one(std::string(bad) + "hello\r\n", 1 << 20, &out, &last) == http::ReadStatus::Malformed);
  // The data must end with CRLF exactly where the size says.
  CHECK(one("3\r\nhello\r\n", 16, &out, &last) == http::ReadStatus::Malformed);

  // A whole body read chunk by chunk, and read_chunked agrees with it.
  const std::string body = "4\r\nWiki\r\n6\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\n\r\n";
  {
    Peer p(body);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    std::string all;
    for (int i = 0; i < 8; ++i) {
      CHECK(r.read_chunk(&out, 64, 1000, &last) == http::ReadStatus::Ok);
      if (last) break;
      all += out;
    }
    CHECK(last);
    CHECK_EQ(all, std::string("Wikipedia in \r\n\r\nchunks."));
  }
  {
    Peer p(body);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    CHECK(r.read_chunked(&out, 64, 1000) == http::ReadStatus::Ok);
    CHECK_EQ(out, std::string("Wikipedia in \r\n\r\nchunks."));
  }
  {
    Peer p(body);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    CHECK(r.read_chunked(&out, 20, 1000) == http::ReadStatus::TooLarge);  // the whole body's limit
  }

  // A heap nearly full (a full worker's pods and connections): a body of four 2000-byte
  // chunks needs at least 8000 bytes; with 6000 left the read stops with NoMemory, the node
  // goes on, and the same body reads once the heap has room again.
  std::string big;
  for (char c : {'a', 'b', 'c', 'd'}) big += "7d0\r\n" + std::string(2000, c) + "\r\n";
  big += "0\r\n\r\n";
  constexpr uint64_t kLeft = 6000;
  std::string got;
  got.reserve(16);
  std::vector<void*> fill;
  for (port::Region r : {port::Region::Internal, port::Region::Psram}) {
    const uint64_t room = port::mem_available(r);
    if (room > kLeft) fill.push_back(port::mem_alloc(static_cast<size_t>(room - kLeft), r));
  }
  CHECK(port::mem_available(port::Region::Any) <= 2 * kLeft);
  {
    Peer p(big);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    CHECK(r.read_chunked(&got, 1 << 20, 1000) == http::ReadStatus::NoMemory);
    CHECK(got.size() < 8000);
  }
  for (void* f : fill) port::mem_free(f);
  {
    Peer p(big);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    CHECK(r.read_chunked(&got, 1 << 20, 1000) == http::ReadStatus::Ok);
    CHECK_EQ(got.size(), size_t{8000});
    CHECK(got.compare(6000, 2000, std::string(2000, 'd')) == 0);
  }
  // A Content-Length body likewise: NoMemory once the heap cannot hold what has arrived.
  const std::string plain(8000, 'x');
  std::string().swap(got);  // none of the earlier body's block kept
  fill.clear();
  for (port::Region r : {port::Region::Internal, port::Region::Psram}) {
    const uint64_t room = port::mem_available(r);
    if (room > kLeft) fill.push_back(port::mem_alloc(static_cast<size_t>(room - kLeft), r));
  }
  {
    Peer p(plain);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    CHECK(r.read_exact(8000, &got, 1000) == http::ReadStatus::NoMemory);
    CHECK(got.size() < 8000);
  }
  for (void* f : fill) port::mem_free(f);

  // The node's own clients (reserve_announced): a body is allocated once for its announced
  // length, not doubled as it grows. A list page as the API server writes it (its head, the
  // item, the closing metadata) ends in one block of the item's size and an eighth, where
  // doubling left up to twice it; a Content-Length body in a block of exactly its length.
  {
    const std::string head = "{\"items\":[", item(12000, 'i'), tail = "],\"metadata\":{\"a\":1}}";
    std::string list;
    for (const std::string* part : {&head, &item, &tail}) {
      char size[16];
      std::snprintf(size, sizeof size, "%zx\r\n", part->size());
      list += size + *part + "\r\n";
    }
    Peer p(list + "0\r\n\r\n");
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    r.reserve_announced();
    std::string page;
    CHECK(r.read_chunked(&page, 1 << 20, 1000) == http::ReadStatus::Ok);
    CHECK_EQ(page, head + item + tail);
    CHECK(page.capacity() <= (head.size() + item.size()) * 9 / 8);
  }
  {
    Peer p(plain);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    r.reserve_announced();
    std::string exact;
    CHECK(r.read_exact(8000, &exact, 1000) == http::ReadStatus::Ok);
    CHECK_EQ(exact, plain);
    CHECK_EQ(exact.capacity(), size_t{8000});
  }
  {
    // Without it (a server's request body) the body still grows by doubling as bytes arrive.
    Peer p(plain);
    http::Conn conn(p.sv[0]);
    http::ConnReader r(&conn);
    std::string grown;
    CHECK(r.read_exact(8000, &grown, 1000) == http::ReadStatus::Ok);
    CHECK(grown.capacity() > 8000);
  }
  TEST_MAIN_END();
}
