#include "core/util/inflate.h"

#include <cstring>

namespace k32 {

namespace {

// DEFLATE's alphabets (RFC 1951 3.2.5): protocol tables, not budgets.
constexpr uint16_t kLenBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                    6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
constexpr uint8_t kClOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
constexpr int kMaxBits = 15;

struct Bits {
  const uint8_t* p;
  size_t len;
  size_t byte = 0;
  int bit = 0;
  bool over = false;
  uint32_t get(int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) {
      if (byte >= len) {
        over = true;
        return 0;
      }
      v |= static_cast<uint32_t>((p[byte] >> bit) & 1u) << i;
      if (++bit == 8) bit = 0, ++byte;
    }
    return v;
  }
  void align() {
    if (bit) bit = 0, ++byte;
  }
};

// A canonical Huffman code: counts per length and symbols in code order.
struct Huffman {
  uint16_t count[kMaxBits + 1];
  uint16_t symbol[288];
  bool build(const uint8_t* lengths, int n) {
    std::memset(count, 0, sizeof count);
    for (int i = 0; i < n; ++i) count[lengths[i]]++;
    count[0] = 0;
    int left = 1;
    for (int len = 1; len <= kMaxBits; ++len) {
      left <<= 1;
      left -= count[len];
      if (left < 0) return false;  // over-subscribed
    }
    uint16_t offs[kMaxBits + 1];
    offs[1] = 0;
    for (int len = 1; len < kMaxBits; ++len) offs[len + 1] = static_cast<uint16_t>(offs[len] + count[len]);
    for (int i = 0; i < n; ++i)
      if (lengths[i]) symbol[offs[lengths[i]]++] = static_cast<uint16_t>(i);
    return true;
  }
  // -1 on a code that is not in the table or input that ran out.
  int decode(Bits* b) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= kMaxBits; ++len) {
      code |= static_cast<int>(b->get(1));
      if (b->over) return -1;
      const int c = count[len];
      if (code - c < first) return symbol[index + (code - first)];
      index += c;
      first += c;
      first <<= 1;
      code <<= 1;
    }
    return -1;
  }
};

}  // namespace

Inflater::Inflater(size_t window_bytes) : win_(window_bytes ? window_bytes : 1, '\0') {}

void Inflater::put(uint8_t b) {
  win_[pos_] = static_cast<char>(b);
  pos_ = (pos_ + 1) % win_.size();
  if (filled_ < win_.size()) ++filled_;
}

void Inflater::preset(const uint8_t* dict, size_t len) {
  for (size_t i = 0; i < len; ++i) put(dict[i]);
}

bool Inflater::feed(const uint8_t* in, size_t len, std::string* out, size_t max_out, std::string* err) {
  if (broken_) {
    *err = "the compressed stream already failed";
    return false;
  }
  broken_ = true;  // cleared on success
  Bits b{in, len};
  Huffman lit, dist;
  while (b.byte < len) {
    if (final_) {
      *err = "data after the final deflate block";
      return false;
    }
    final_ = b.get(1) != 0;
    const uint32_t type = b.get(2);
    if (b.over) break;
    if (type == 0) {
      b.align();
      if (b.byte + 4 > len) {
        b.over = true;
        break;
      }
      const uint32_t n = in[b.byte] | (uint32_t{in[b.byte + 1]} << 8);
      const uint32_t nn = in[b.byte + 2] | (uint32_t{in[b.byte + 3]} << 8);
      b.byte += 4;
      if ((n ^ 0xffffu) != nn) {
        *err = "stored block length check failed";
        return false;
      }
      if (b.byte + n > len) {
        b.over = true;
        break;
      }
      if (out->size() + n > max_out) {
        *err = "decompressed data longer than " + std::to_string(max_out) + " bytes";
        return false;
      }
      for (uint32_t i = 0; i < n; ++i) {
        out->push_back(static_cast<char>(in[b.byte + i]));
        put(in[b.byte + i]);
      }
      b.byte += n;
      continue;
    }
    if (type == 3) {
      *err = "invalid deflate block type 3";
      return false;
    }
    uint8_t lengths[320];
    if (type == 1) {
      int i = 0;
      for (; i < 144; ++i) lengths[i] = 8;
      for (; i < 256; ++i) lengths[i] = 9;
      for (; i < 280; ++i) lengths[i] = 7;
      for (; i < 288; ++i) lengths[i] = 8;
      lit.build(lengths, 288);
      for (i = 0; i < 30; ++i) lengths[i] = 5;
      dist.build(lengths, 30);
    } else {
      const int nlen = static_cast<int>(b.get(5)) + 257, ndist = static_cast<int>(b.get(5)) + 1,
                ncode = static_cast<int>(b.get(4)) + 4;
      if (b.over) break;
      if (nlen > 286 || ndist > 30) {
        *err = "dynamic block declares too many codes";
        return false;
      }
      uint8_t cl[19] = {0};
      for (int i = 0; i < ncode; ++i) cl[kClOrder[i]] = static_cast<uint8_t>(b.get(3));
      Huffman clh;
      if (b.over) break;
      if (!clh.build(cl, 19)) {
        *err = "bad code-length code";
        return false;
      }
      int i = 0;
      while (i < nlen + ndist) {
        const int sym = clh.decode(&b);
        if (sym < 0) break;
        if (sym < 16) {
          lengths[i++] = static_cast<uint8_t>(sym);
          continue;
        }
        int rep = 0;
        uint8_t val = 0;
        if (sym == 16) {
          if (i == 0) {
            *err = "repeat with no previous length";
            return false;
          }
          val = lengths[i - 1];
          rep = 3 + static_cast<int>(b.get(2));
        } else if (sym == 17) {
          rep = 3 + static_cast<int>(b.get(3));
        } else {
          rep = 11 + static_cast<int>(b.get(7));
        }
        if (i + rep > nlen + ndist) {
          *err = "code lengths overflow";
          return false;
        }
        while (rep--) lengths[i++] = val;
      }
      if (b.over || i < nlen + ndist) {
        if (!b.over) *err = "bad code lengths";
        if (!b.over) return false;
        break;
      }
      if (lengths[256] == 0) {
        *err = "no end-of-block code";
        return false;
      }
      if (!lit.build(lengths, nlen) || !dist.build(lengths + nlen, ndist)) {
        *err = "over-subscribed Huffman code";
        return false;
      }
    }
    // The block's symbols.
    for (;;) {
      const int sym = lit.decode(&b);
      if (sym < 0) {
        if (!b.over) {
          *err = "invalid literal/length code";
          return false;
        }
        break;
      }
      if (sym == 256) break;
      if (sym < 256) {
        if (out->size() + 1 > max_out) {
          *err = "decompressed data longer than " + std::to_string(max_out) + " bytes";
          return false;
        }
        out->push_back(static_cast<char>(sym));
        put(static_cast<uint8_t>(sym));
        continue;
      }
      const int li = sym - 257;
      if (li >= 29) {
        *err = "invalid length code";
        return false;
      }
      const size_t length = kLenBase[li] + b.get(kLenExtra[li]);
      const int ds = dist.decode(&b);
      if (b.over) break;
      if (ds < 0 || ds >= 30) {
        *err = "invalid distance code";
        return false;
      }
      const size_t d = kDistBase[ds] + b.get(kDistExtra[ds]);
      if (b.over) break;
      if (d > filled_) {
        *err = d > win_.size() ? "a back-reference reaches " + std::to_string(d) + " bytes back, past the " +
                                     std::to_string(win_.size()) + "-byte window kept"
                               : std::string("a back-reference reaches before the start of the stream");
        return false;
      }
      if (out->size() + length > max_out) {
        *err = "decompressed data longer than " + std::to_string(max_out) + " bytes";
        return false;
      }
      for (size_t k = 0; k < length; ++k) {
        const uint8_t c = static_cast<uint8_t>(win_[(pos_ + win_.size() - d) % win_.size()]);
        out->push_back(static_cast<char>(c));
        put(c);
      }
    }
    if (b.over) break;
  }
  if (b.over) {
    *err = "compressed data ends inside a deflate block (not flushed)";
    return false;
  }
  broken_ = false;
  return true;
}

}  // namespace k32
