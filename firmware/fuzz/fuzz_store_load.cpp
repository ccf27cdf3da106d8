// libFuzzer target: arbitrary bytes -> the object store's loaders (log and snapshot), on memory
// buffers exactly as ObjectStore::open reads its files. Any crash, hang or sanitizer report is a
// bug. Beyond that:
//  - a refusal names a record and a byte offset;
//  - whatever loads, written again by the store's own encoder, loads again to the same records;
//  - that log cut at any byte (a torn append) is never taken for corruption: it loads, up to
//    the last whole record before the cut.
// Built like every firmware/fuzz/fuzz_*.cpp target (clang -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/store/store_format.h"

using namespace k32;
using store::format::Record;

namespace {

void require(bool cond, const char* what, const std::string& detail) {
  if (cond) return;
  std::fprintf(stderr, "fuzz_store_load: %s: %s\n", what, detail.c_str());
  std::abort();
}

std::string encode(const Record& r) {
  return store::format::encode_record(r.op, r.resource, r.ns, r.name, r.rv, r.op == 'p' ? &r.obj : nullptr);
}

bool same(const std::vector<Record>& a, const std::vector<Record>& b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (encode(a[i]) != encode(b[i])) return false;
  return true;
}

void check_log(const char* data, size_t size) {
  std::vector<Record> got;
  store::format::LogScan scan;
  std::string err;
  // A small bound on one append (the first byte picks it) exercises the "more follows" refusal.
  size_t max_record = size ? static_cast<uint8_t>(data[0]) * 16u : 0;
  bool ok = store::format::scan_log(
      data, size, [&](Record&& r) { got.push_back(std::move(r)); }, &scan, &err, max_record);
  if (!ok) {
    require(err.find("record ") == 0 && err.find(" at byte offset ") != std::string::npos, "refusal without a place", err);
    return;
  }
  require(scan.good_end <= size && scan.records == got.size(), "scan past the input", std::to_string(scan.good_end));

  std::string canon;
  size_t longest = 0;
  for (const auto& r : got) {
    std::string rec = encode(r);
    if (rec.size() > longest) longest = rec.size();
    store::format::append_frame(rec, &canon);
  }
  std::vector<Record> again;
  ok = store::format::scan_log(
      canon.data(), canon.size(), [&](Record&& r) { again.push_back(std::move(r)); }, &scan, &err, SIZE_MAX);
  require(ok && scan.good_end == canon.size() && again.size() == got.size() && same(got, again, got.size()),
          "a log the store wrote does not load back", err);

  // A torn append: the same log cut anywhere loads the whole records before the cut.
  if (canon.empty()) return;
  size_t cut = size % canon.size();
  std::vector<Record> torn;
  // Bounded by its longest record, as the store bounds a log by its per-object limit.
  ok = store::format::scan_log(
      canon.data(), cut, [&](Record&& r) { torn.push_back(std::move(r)); }, &scan, &err, longest);
  require(ok, "a torn tail was taken for corruption", err);
  require(scan.good_end <= cut && torn.size() <= got.size() && same(got, torn, torn.size()),
          "a torn tail changed the records before it", std::to_string(cut));
}

void check_snapshot(const char* data, size_t size) {
  std::vector<Record> got;
  uint64_t rv = 0;
  std::string err;
  if (!store::format::load_snapshot(
          data, size, &rv, [&](Record&& r) { got.push_back(std::move(r)); }, &err)) {
    // A single-document snapshot of older firmware parses whole; its items have no offset.
    require(err.find("byte offset ") != std::string::npos || err.find("item ") == 0, "refusal without a place", err);
    return;
  }
  std::string canon = store::format::snapshot_header(rv);
  for (const auto& r : got) {
    require(r.op == 'p', "a snapshot replayed a delete", r.name);
    store::format::append_frame(encode(r), &canon);
  }
  std::vector<Record> again;
  uint64_t rv2 = 0;
  bool ok = store::format::load_snapshot(
      canon.data(), canon.size(), &rv2, [&](Record&& r) { again.push_back(std::move(r)); }, &err);
  require(ok && rv2 == rv && again.size() == got.size() && same(got, again, got.size()),
          "a snapshot the store wrote does not load back", err);
}

// The checksums stop almost every mutation at the frame: the input's lines, framed with valid
// checksums, take the mutations on to the record decoder as well.
std::string framed(const char* p, size_t size) {
  std::string out;
  size_t start = 0;
  for (size_t i = 0; i <= size; ++i) {
    if (i < size && p[i] != '\n') continue;
    store::format::append_frame(std::string(p + start, i - start), &out);
    start = i + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* p = reinterpret_cast<const char*>(data);
  check_log(p, size);
  check_snapshot(p, size);
  std::string log = framed(p, size);
  check_log(log.data(), log.size());
  std::string snap = std::string(store::format::kSnapshotMagic) + log;
  check_snapshot(snap.data(), snap.size());
  return 0;
}
