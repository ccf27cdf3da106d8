#include "core/store/store_format.h"

#include <cstdlib>
#include <cstring>

#include "core/util/crc32.h"
#include "core/util/text.h"

namespace k32 {
namespace store {
namespace format {

const char kSnapshotMagic[] = "K32SNAP2\n";

namespace {

void put_u32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

std::string where(size_t index, size_t offset) {
  return "record " + text::to_string(static_cast<int64_t>(index)) + " at byte offset " +
         text::to_string(static_cast<int64_t>(offset));
}

// A checksummed record that is not what encode_record writes: why, or empty when it is fine.
std::string decode(const char* p, size_t n, Record* out) {
  json::Value rec;
  json::ParseError pe;
  if (!json::parse(p, n, &rec, &pe, kRecordDepthMax)) return "not valid JSON: " + pe.message;
  if (!rec.is_object()) return "not a JSON object";
  const std::string& t = rec["t"].str();
  if (t != "p" && t != "d") return "unknown operation";
  if (!rec["r"].is_string() || rec["r"].str().empty() || !rec["n"].is_string() || !rec["m"].is_string() || rec["m"].str().empty())
    return "resource, namespace or name missing";
  if (!rec["v"].is_int() || rec["v"].as_int() < 0) return "resourceVersion missing";
  if (t == "p" && !rec["o"].is_object()) return "object missing";
  out->op = t[0];
  out->resource = rec["r"].str();
  out->ns = rec["n"].str();
  out->name = rec["m"].str();
  out->rv = static_cast<uint64_t>(rec["v"].as_int());
  if (json::Value* o = rec.find("o")) out->obj = std::move(*o);
  out->bytes = n;
  return std::string();
}

// Legacy snapshot: {"rv":N,"items":[{"r","n","m","o"}]}, objects three levels down.
bool load_legacy(const char* data, size_t len, uint64_t* rv, const RecordSink& sink, std::string* err) {
  json::Value snap;
  json::ParseError pe;
  if (!json::parse(data, len, &snap, &pe, kLoadDepthMax) || !snap.is_object()) {
    *err = "byte offset " + text::to_string(static_cast<int64_t>(pe.offset)) +
           " of the single-document snapshot: " + (pe.message.empty() ? std::string("not a JSON object") : pe.message);
    return false;
  }
  if (!snap["rv"].is_int() || snap["rv"].as_int() < 0) {
    *err = "byte offset 0 of the single-document snapshot: rv is not a resourceVersion";
    return false;
  }
  *rv = static_cast<uint64_t>(snap["rv"].as_int());
  size_t i = 0;
  for (auto& it : snap.at_or_insert("items").items()) {
    Record r;
    r.op = 'p';
    r.resource = it["r"].str();
    r.ns = it["n"].str();
    r.name = it["m"].str();
    if (r.resource.empty() || r.name.empty() || !it["o"].is_object()) {
      *err = "item " + text::to_string(static_cast<int64_t>(i)) + " of the single-document snapshot is malformed";
      return false;
    }
    uint64_t v = 0;
    const std::string rv_text = it["o"].path_str({"metadata", "resourceVersion"});
    if (!rv_text.empty() && !text::parse_uint(rv_text, INT64_MAX, &v)) {
      *err = "item " + text::to_string(static_cast<int64_t>(i)) + " of the single-document snapshot has a bad resourceVersion";
      return false;
    }
    r.rv = v;
    r.bytes = encode_record('p', r.resource, r.ns, r.name, r.rv, &it["o"]).size();
    r.obj = std::move(*it.find("o"));
    sink(std::move(r));
    ++i;
  }
  return true;
}

}  // namespace

namespace {
// The record up to the object (or its end, for a delete).
void record_head(char op, const std::string& resource, const std::string& ns, const std::string& name, uint64_t rv,
                 std::string* out_) {
  std::string& out = *out_;
  out += "{\"t\":\"";
  out.push_back(op);
  out += "\",\"r\":";
  json::append_escaped(resource, &out);
  out += ",\"n\":";
  json::append_escaped(ns, &out);
  out += ",\"m\":";
  json::append_escaped(name, &out);
  out += ",\"v\":";
  out += text::to_string(static_cast<int64_t>(rv));
}
}  // namespace

std::string encode_record(char op, const std::string& resource, const std::string& ns, const std::string& name, uint64_t rv,
                          const json::Value* obj) {
  std::string out;
  record_head(op, resource, ns, name, rv, &out);
  if (obj) {
    out += ",\"o\":";
    json::dump_to(*obj, &out);
  }
  out.push_back('}');
  return out;
}

std::string encode_frame(char op, const std::string& resource, const std::string& ns, const std::string& name, uint64_t rv,
                         const json::Value* obj) {
  std::string out(kFrameHeader, '\0');
  record_head(op, resource, ns, name, rv, &out);
  if (obj) {
    out += ",\"o\":";
    json::dump_to(*obj, &out);
  }
  out.push_back('}');
  const size_t n = out.size() - kFrameHeader;
  const uint32_t crc = crc32(out.data() + kFrameHeader, n);
  for (int i = 0; i < 4; ++i) {
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    out[static_cast<size_t>(4 + i)] = static_cast<char>((crc >> (8 * i)) & 0xff);
  }
  return out;
}

void append_frame(const std::string& payload, std::string* out) {
  put_u32(out, static_cast<uint32_t>(payload.size()));
  put_u32(out, crc32(payload.data(), payload.size()));
  *out += payload;
}

bool scan_log(const char* data, size_t len, const RecordSink& sink, LogScan* scan, std::string* err, size_t max_record) {
  size_t pos = 0;
  size_t index = 0;
  while (len - pos >= kFrameHeader) {
    uint32_t n = get_u32(data + pos);
    uint32_t crc = get_u32(data + pos + 4);
    size_t body = pos + kFrameHeader;
    if (n > len - body) {
      // Runs past the end: the last append was cut short, unless more follows than one append writes.
      if (len - body <= max_record) break;
      *err = where(index, pos) + " is corrupt: its length (" + text::to_string(static_cast<int64_t>(n)) +
             " bytes) runs past the end of the file, yet " + text::to_string(static_cast<int64_t>(len - body)) +
             " bytes follow, more than one record";
      return false;
    }
    bool last = body + n == len;
    if (crc32(data + body, n) != crc) {
      // A crash may leave the last record's length written but not all of its bytes; one in
      // the middle was acknowledged and then damaged.
      if (last) break;
      *err = where(index, pos) + " is corrupt: checksum mismatch";
      return false;
    }
    Record rec;
    std::string why = decode(data + body, n, &rec);
    if (!why.empty()) {
      *err = where(index, pos) + " does not load: " + why;
      return false;
    }
    sink(std::move(rec));
    pos = body + n;
    ++index;
  }
  scan->records = index;
  scan->good_end = pos;
  return true;
}

bool load_snapshot(const char* data, size_t len, uint64_t* rv, const RecordSink& sink, std::string* err) {
  size_t magic = sizeof kSnapshotMagic - 1;
  size_t start = 0;
  while (start < len && (data[start] == ' ' || data[start] == '\n' || data[start] == '\t' || data[start] == '\r')) ++start;
  if (start < len && data[start] == '{') return load_legacy(data, len, rv, sink, err);
  if (len < magic || std::memcmp(data, kSnapshotMagic, magic) != 0) {
    *err = "byte offset 0: not a snapshot (no K32SNAP2 header)";
    return false;
  }
  size_t pos = magic;
  size_t index = 0;
  bool have_header = false;
  while (pos < len) {
    if (len - pos < kFrameHeader) {
      *err = where(index, pos) + " is cut short";
      return false;
    }
    uint32_t n = get_u32(data + pos);
    uint32_t crc = get_u32(data + pos + 4);
    size_t body = pos + kFrameHeader;
    if (n > len - body) {
      *err = where(index, pos) + " is cut short";
      return false;
    }
    if (crc32(data + body, n) != crc) {
      *err = where(index, pos) + " is corrupt: checksum mismatch";
      return false;
    }
    if (!have_header) {
      json::Value h;
      json::ParseError pe;
      if (!json::parse(data + body, n, &h, &pe) || !h["v"].is_int() || h["v"].as_int() < 0) {
        *err = where(index, pos) + " is not the snapshot header";
        return false;
      }
      *rv = static_cast<uint64_t>(h["v"].as_int());
      have_header = true;
    } else {
      Record rec;
      std::string why = decode(data + body, n, &rec);
      if (why.empty() && rec.op != 'p') why = "a delete in a snapshot";
      if (!why.empty()) {
        *err = where(index, pos) + " does not load: " + why;
        return false;
      }
      sink(std::move(rec));
    }
    pos = body + n;
    ++index;
  }
  if (!have_header) {
    *err = "byte offset " + text::to_string(static_cast<int64_t>(magic)) + ": the snapshot header is missing";
    return false;
  }
  return true;
}

std::string snapshot_header(uint64_t rv) {
  std::string out(kSnapshotMagic);
  append_frame("{\"v\":" + text::to_string(static_cast<int64_t>(rv)) + "}", &out);
  return out;
}

}  // namespace format
}  // namespace store
}  // namespace k32
