// The port's SHA-256 (mbedTLS on the host and on boards, the portable code on the bare-metal
// port and the 32-bit host): the FIPS 180-4 / NIST example messages, the padding edges around
// one and two blocks, and a message fed in odd-sized pieces giving the digest of the whole.
#include <cstring>
#include <string>

#include "check.h"
#include "port.h"

using namespace k32;

static std::string hex_of(const uint8_t d[port::kSha256Bytes]) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < port::kSha256Bytes; ++i) {
    s.push_back(digits[d[i] >> 4]);
    s.push_back(digits[d[i] & 0xf]);
  }
  return s;
}

static std::string one_shot(const void* data, size_t len) {
  char hex[2 * port::kSha256Bytes + 1];
  port::sha256_hex(data, len, hex);
  return hex;
}

static std::string of(const char* s) { return one_shot(s, std::strlen(s)); }

static void test_nist_vectors() {
  CHECK_EQ(of(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  CHECK_EQ(of("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  // 448 bits: the padding no longer fits the first block.
  CHECK_EQ(of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
           std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  CHECK_EQ(of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
           std::string("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
  // One million 'a', fed 1000 bytes at a time (the bare-metal target has no megabyte to spare).
  char chunk[1000];
  std::memset(chunk, 'a', sizeof chunk);
  port::Sha256 h;
  for (int i = 0; i < 1000; ++i) h.update(chunk, sizeof chunk);
  uint8_t d[port::kSha256Bytes];
  h.finish(d);
  CHECK_EQ(hex_of(d), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

static void test_padding_edges() {
  // 55 bytes: length fits the block; 56: it does not; 63/64: one byte short of / exactly a
  // block; 119/120: the same around the second block.
  struct Case {
    size_t n;
    const char* hex;
  } cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  char a[120];
  std::memset(a, 'a', sizeof a);
  for (const Case& c : cases) {
    const std::string got = one_shot(a, c.n);
    if (got != c.hex) std::fprintf(stderr, "%u x 'a': %s\n", static_cast<unsigned>(c.n), got.c_str());
    CHECK_EQ(got, std::string(c.hex));
  }
}

static void test_streamed_in_odd_chunks() {
  uint8_t msg[1000];
  for (uint32_t i = 0; i < sizeof msg; ++i) msg[i] = static_cast<uint8_t>((i * i * 31 + i * 7 + 3) >> 3);
  const std::string whole = one_shot(msg, sizeof msg);
  CHECK_EQ(whole, std::string("42aec87fb504b19b54fddb05325ba3f8dcf4954dfbe259e64bd9a98ba33445de"));
  // Pieces that straddle block boundaries in every way, empty ones included.
  const size_t sizes[] = {1, 0, 3, 7, 13, 63, 64, 65, 2, 127, 129, 5, 0, 31};
  port::Sha256 h;
  size_t off = 0;
  for (size_t k = 0; off < sizeof msg; ++k) {
    size_t n = sizes[k % (sizeof sizes / sizeof sizes[0])];
    if (n > sizeof msg - off) n = sizeof msg - off;
    h.update(msg + off, n);
    off += n;
  }
  uint8_t d[port::kSha256Bytes];
  h.finish(d);
  CHECK_EQ(hex_of(d), whole);
  // Byte by byte, and two hashes under way at once do not disturb each other.
  port::Sha256 x, y;
  for (size_t i = 0; i < sizeof msg; ++i) {
    x.update(msg + i, 1);
    y.update(msg + sizeof msg - 1 - i, 1);
  }
  uint8_t dx[port::kSha256Bytes], dy[port::kSha256Bytes];
  x.finish(dx);
  y.finish(dy);
  CHECK_EQ(hex_of(dx), whole);
  CHECK(hex_of(dy) != whole);
}

int main() {
  test_nist_vectors();
  test_padding_edges();
  test_streamed_in_odd_chunks();
  TEST_MAIN_END();
}
