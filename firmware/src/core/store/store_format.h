// The object store's files: how records are framed, encoded and read back.
//
// objects.log  – append-only: frames of [u32 length][u32 crc32][record JSON] (little endian).
// objects.snap – "K32SNAP2\n", a header frame {"v":rv}, then one put record per object.
// A record is {"t":"p"|"d","r":resource,"n":namespace,"m":name,"v":rv[,"o":object]}.
//
// Readers work on memory buffers (the fuzzer feeds them directly). They never decide what to
// do with a file; they report a torn tail (a log append cut short by a crash, never
// acknowledged) apart from a complete record that does not load (corruption: stop and say
// which record, at which byte offset, failed).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace store {
namespace format {

// The deepest a record may nest. Writers refuse records deeper and readers parse with exactly
// this, so whatever was written can be read back. It lies one level above the JSON parser's
// own limit so that every record an older firmware wrote (objects as deep as that limit,
// wrapped once) loads as well.
constexpr int kRecordDepthMax = json::kMaxDepth + 1;
// The deepest the loaders ask the JSON parser to go: an older single-document snapshot holds
// its records two levels further down (three past the parser's own limit).
constexpr int kLoadDepthMax = kRecordDepthMax + 2;
constexpr size_t kFrameHeader = 8;
extern const char kSnapshotMagic[];  // "K32SNAP2\n"

struct Record {
  char op = 0;  // 'p' put, 'd' delete
  std::string resource, ns, name;
  uint64_t rv = 0;
  json::Value obj;   // puts only
  size_t bytes = 0;  // size of the encoded record: what the store's budget counts
};

using RecordSink = std::function<void(Record&&)>;

// The record JSON (no frame). obj is null for deletes.
std::string encode_record(char op, const std::string& resource, const std::string& ns, const std::string& name, uint64_t rv,
                          const json::Value* obj);
void append_frame(const std::string& payload, std::string* out);
// The framed record ([length][crc32][record], what append_frame makes of encode_record),
// serialised straight into one buffer: a write holds the record's bytes once, not twice.
// The record is size() - kFrameHeader bytes.
std::string encode_frame(char op, const std::string& resource, const std::string& ns, const std::string& name, uint64_t rv,
                         const json::Value* obj);

struct LogScan {
  size_t records = 0;   // whole records replayed
  size_t good_end = 0;  // bytes they span; anything after is a torn tail the caller may cut
};

// Replays every whole record into sink. false (with *err naming record and byte offset) when a
// complete record is corrupt; a record that runs past the end, or a last record whose checksum
// fails, is a torn append and only ends the scan. max_record is the longest record a writer
// appends: more bytes than that after a record's start cannot be one torn append, so a length
// that runs past the end there is damage, not a tail to cut.
bool scan_log(const char* data, size_t len, const RecordSink& sink, LogScan* scan, std::string* err, size_t max_record);

// Replays a snapshot (this format, or the single JSON document older firmware wrote). A
// snapshot is replaced atomically, so any damage is corruption: false with *err.
bool load_snapshot(const char* data, size_t len, uint64_t* rv, const RecordSink& sink, std::string* err);

// A snapshot's bytes start with this; then append_frame() one encode_record('p', ...) per object.
std::string snapshot_header(uint64_t rv);

}  // namespace format
}  // namespace store
}  // namespace k32
