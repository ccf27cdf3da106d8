// Object store loading and limits: a record the store wrote always loads again (however deep
// the object), a complete record that does not load stops the open without touching a file,
// only a torn last append is cut, and the size limits refuse a write without losing anything.
#include <cstdio>
#include <string>

#include "check.h"
#include "core/store/object_store.h"
#include "core/store/event_ttl.h"
#include "core/store/store_format.h"
#include "core/util/text.h"
#include "core/util/crc32.h"
#include "port.h"

using k32::json::Value;
using k32::store::Limits;
using k32::store::ObjectStore;
using k32::store::Result;

namespace {

Value cm(const char* name, size_t data_bytes = 1) {
  Value v = Value::object();
  v.at_or_insert("metadata").set("name", name);
  v.set("data", Value::object()).set("k", std::string(data_bytes, 'v'));
  return v;
}

// A ConfigMap whose unknown field `extra` puts a string `depth` levels below the top.
Value deep_cm(const char* name, int depth) {
  Value inner("leaf");
  for (int i = 0; i < depth - 1; ++i) {
    Value o = Value::object();
    o.set("n", std::move(inner));
    inner = std::move(o);
  }
  Value v = cm(name);
  v.set("extra", std::move(inner));
  return v;
}

std::string fresh_dir() {
  char tmpl[] = "/tmp/k32-storeload-XXXXXX";
  return mkdtemp(tmpl);
}

std::string read(const std::string& path) {
  char* data = nullptr;
  size_t len = 0;
  if (!k32::port::file_read(path.c_str(), &data, &len)) return std::string();
  std::string s(data, len);
  k32::port::mem_free(data);
  return s;
}

void write(const std::string& path, const std::string& bytes) {
  CHECK(k32::port::file_write_atomic(path.c_str(), bytes.data(), bytes.size()));
}

// Byte offsets of every frame of a log.
std::vector<size_t> frames(const std::string& log) {
  std::vector<size_t> out;
  size_t pos = 0;
  while (pos + 8 <= log.size()) {
    out.push_back(pos);
    uint32_t n = static_cast<uint8_t>(log[pos]) | static_cast<uint8_t>(log[pos + 1]) << 8 |
                 static_cast<uint8_t>(log[pos + 2]) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(log[pos + 3])) << 24;
    pos += 8 + n;
  }
  return out;
}

Limits roomy() { return Limits{1u << 20, 1u << 24, 1u << 22}; }

void deep_objects_load_again() {
  std::string dir = fresh_dir();
  std::string err;
  // The deepest document the JSON parser reads, one level deeper inside its log record.
  const int deepest = k32::json::kMaxDepth;
  {
    ObjectStore st(roomy());
    CHECK(st.open(dir, &err));
    Value stored;
    CHECK(st.create("configmaps", "default", "deep", deep_cm("deep", deepest), &stored) == Result::Ok);
    for (const char* n : {"a", "b", "c"}) CHECK(st.create("configmaps", "default", n, cm(n), &stored) == Result::Ok);
    // A record deeper than the store reads is refused, not written.
    CHECK(st.create("configmaps", "default", "deeper", deep_cm("deeper", k32::store::format::kRecordDepthMax), &stored) ==
          Result::TooDeep);
  }
  {
    ObjectStore st(roomy());
    CHECK(st.open(dir, &err));
    Value got;
    CHECK(st.get("configmaps", "default", "deep", &got));
    CHECK(got["extra"] == deep_cm("deep", deepest)["extra"]);
    for (const char* n : {"a", "b", "c"}) CHECK(st.get("configmaps", "default", n, &got));
    CHECK(!st.get("configmaps", "default", "deeper", &got));
    CHECK_EQ(st.current_rv(), 4u);
  }
  // Folded into the snapshot (a tiny log limit compacts on every write), it loads as well.
  {
    ObjectStore st(Limits{1u << 20, 1u << 24, 1});
    CHECK(st.open(dir, &err));
    Value stored;
    CHECK(st.create("configmaps", "default", "e", cm("e"), &stored) == Result::Ok);
    CHECK_EQ(read(dir + "/objects.log").size(), 0u);
  }
  {
    ObjectStore st(roomy());
    CHECK(st.open(dir, &err));
    Value got;
    CHECK(st.get("configmaps", "default", "deep", &got));
    CHECK(got["extra"] == deep_cm("deep", deepest)["extra"]);
    for (const char* n : {"a", "b", "c", "e"}) CHECK(st.get("configmaps", "default", n, &got));
    CHECK_EQ(st.current_rv(), 5u);
  }
}

// Five creates in a fresh store; returns its directory.
std::string five_records() {
  std::string dir = fresh_dir();
  std::string err;
  ObjectStore st(roomy());
  CHECK(st.open(dir, &err));
  Value stored;
  for (const char* n : {"r0", "r1", "r2", "r3", "r4"}) CHECK(st.create("configmaps", "default", n, cm(n), &stored) == Result::Ok);
  return dir;
}

void corrupt_complete_records_stop_the_open() {
  std::string err;
  {
    // A bit flipped inside record 2: the checksum fails on a record that is not the last.
    std::string dir = five_records();
    std::string log = read(dir + "/objects.log");
    std::vector<size_t> at = frames(log);
    CHECK_EQ(at.size(), 5u);
    log[at[2] + 8 + 12] ^= 0x20;
    write(dir + "/objects.log", log);
    ObjectStore st(roomy());
    CHECK(!st.open(dir, &err));
    CHECK(err.find("record 2 at byte offset " + std::to_string(at[2])) != std::string::npos);
    CHECK(err.find("checksum") != std::string::npos);
    CHECK(read(dir + "/objects.log") == log);
  }
  {
    // Record 1's length damaged to run past the end of the file, with more than one record
    // after it: not a torn append, so nothing after it may be cut.
    std::string dir = five_records();
    std::string log = read(dir + "/objects.log");
    std::vector<size_t> at = frames(log);
    log[at[1] + 3] = '\x7f';
    write(dir + "/objects.log", log);
    ObjectStore st(Limits{50, 1u << 24, 1u << 22});  // one append writes at most 4 x 50 bytes
    CHECK(!st.open(dir, &err));
    CHECK(err.find("record 1 at byte offset " + std::to_string(at[1])) != std::string::npos);
    CHECK(read(dir + "/objects.log") == log);
  }
  {
    // A whole record with a valid checksum that is not a record (what a parser limit lower
    // than the writer's used to produce): corruption, even as the last record.
    std::string dir = five_records();
    std::string log = read(dir + "/objects.log");
    std::vector<size_t> at = frames(log);
    std::string bad;
    k32::store::format::append_frame("{\"t\":\"p\",\"r\":\"configmaps\"", &bad);
    log = log.substr(0, at[4]) + bad;
    write(dir + "/objects.log", log);
    ObjectStore st(roomy());
    CHECK(!st.open(dir, &err));
    CHECK(err.find("record 4 at byte offset " + std::to_string(at[4])) != std::string::npos);
    CHECK(read(dir + "/objects.log") == log);
  }
  {
    // A damaged snapshot: the open fails and names the record; nothing is rewritten.
    std::string dir = five_records();
    {
      ObjectStore st(Limits{1u << 20, 1u << 24, 1});
      CHECK(st.open(dir, &err));
      Value stored;
      CHECK(st.create("configmaps", "default", "r5", cm("r5"), &stored) == Result::Ok);
    }
    std::string snap = read(dir + "/objects.snap");
    CHECK(snap.compare(0, 9, k32::store::format::kSnapshotMagic) == 0);
    snap[snap.size() - 5] ^= 0x01;
    write(dir + "/objects.snap", snap);
    ObjectStore st(roomy());
    CHECK(!st.open(dir, &err));
    CHECK(err.find("objects.snap") != std::string::npos && err.find("byte offset") != std::string::npos);
    CHECK(read(dir + "/objects.snap") == snap);
  }
}

void torn_last_record_is_cut() {
  std::string err;
  // The last record's bytes only partly written (its length was): checksum fails at the end.
  std::string dir = five_records();
  std::string log = read(dir + "/objects.log");
  std::vector<size_t> at = frames(log);
  std::string torn = log;
  for (size_t i = at[4] + 20; i < torn.size(); ++i) torn[i] = 0;
  write(dir + "/objects.log", torn);
  {
    ObjectStore st(roomy());
    CHECK(st.open(dir, &err));
    Value got;
    CHECK(st.get("configmaps", "default", "r3", &got));
    CHECK(!st.get("configmaps", "default", "r4", &got));
    CHECK(read(dir + "/objects.log") == log.substr(0, at[4]));
  }
}

void legacy_snapshot_loads() {
  std::string dir = fresh_dir();
  std::string err;
  CHECK(k32::port::dir_ensure(dir.c_str()));
  // The single JSON document older firmware wrote, holding an object as deep as it accepted.
  Value snap = Value::object();
  snap.set("rv", 7);
  Value item = Value::object();
  item.set("r", "configmaps");
  item.set("n", "default");
  item.set("m", "old");
  Value o = deep_cm("old", k32::json::kMaxDepth);
  o.at_or_insert("metadata").set("resourceVersion", "7");
  item.set("o", o);
  snap.set("items", Value::array()).push(item);
  write(dir + "/objects.snap", k32::json::dump(snap));
  ObjectStore st(roomy());
  CHECK(st.open(dir, &err));
  Value got;
  CHECK(st.get("configmaps", "default", "old", &got));
  CHECK(got == o);
  CHECK_EQ(st.current_rv(), 7u);
  CHECK(st.used_bytes() > 0u);
}

void limits_refuse_and_keep_everything() {
  std::string dir = fresh_dir();
  std::string err;
  const uint64_t budget = 4000;
  uint64_t used = 0;
  {
    ObjectStore st(Limits{1000, budget, 1u << 20});
    CHECK(st.open(dir, &err));
    Value stored;
    CHECK(st.create("configmaps", "default", "huge", cm("huge", 1000), &stored) == Result::TooLarge);
    int made = 0;
    Result r = Result::Ok;
    for (; made < 20; ++made) {
      std::string n = "c" + std::to_string(made);
      r = st.create("configmaps", "default", n, cm(n.c_str(), 700), &stored);
      if (r != Result::Ok) break;
    }
    CHECK(r == Result::NoSpace);
    CHECK(made >= 3);
    CHECK(st.used_bytes() <= budget - st.limits().reserve());
    // Updates may use the reserve that creates leave free.
    CHECK(st.update("configmaps", "default", "c0", cm("c0", 800), 0, &stored) == Result::Ok);
    CHECK(st.used_bytes() <= budget);
    // Deleting makes room again.
    Value removed;
    CHECK(st.remove("configmaps", "default", "c1", 0, &removed) == Result::Ok);
    CHECK(st.create("configmaps", "default", "after", cm("after", 10), &stored) == Result::Ok);
    used = st.used_bytes();
    for (int i = 0; i < made; ++i) {
      Value got;
      CHECK(st.get("configmaps", "default", "c" + std::to_string(i), &got) == (i != 1));
    }
  }
  {
    // After a restart the store counts the same bytes (the budget holds across restarts).
    ObjectStore st(Limits{1000, budget, 1u << 20});
    CHECK(st.open(dir, &err));
    CHECK_EQ(st.used_bytes(), used);
    Value got;
    CHECK(st.get("configmaps", "default", "c0", &got));
    CHECK_EQ(got["data"]["k"].str().size(), 800u);
  }
}

// Events expire after the TTL, so a long-running cluster does not fill its budget with them.
void events_expire() {
  ObjectStore st(roomy());
  std::string err;
  CHECK(st.open("", &err));
  auto event = [&](const char* name, const char* last) {
    Value ev = Value::object();
    ev.set("kind", "Event");
    ev.at_or_insert("metadata").set("name", name);
    ev.at_or_insert("metadata").set("namespace", "default");
    ev.at_or_insert("metadata").set("creationTimestamp", "2026-01-01T00:00:00Z");
    if (last) ev.set("lastTimestamp", last);
    Value stored;
    CHECK(st.create("events", "default", name, ev, &stored) == Result::Ok);
  };
  event("old", "2026-01-01T00:00:00Z");
  event("recent", "2026-01-01T00:59:00Z");
  event("no-last", nullptr);  // falls back to creationTimestamp
  const int64_t one_hour_later = k32::text::parse_rfc3339("2026-01-01T01:00:01Z");
  CHECK_EQ(k32::store::expire_events(&st, one_hour_later, 3600), 2);
  Value got;
  CHECK(st.get("events", "default", "recent", &got));
  CHECK(!st.get("events", "default", "old", &got));
  CHECK(!st.get("events", "default", "no-last", &got));
  CHECK_EQ(k32::store::expire_events(&st, one_hour_later, 3600), 0);
}

}  // namespace

int main() {
  deep_objects_load_again();
  corrupt_complete_records_stop_the_open();
  torn_last_record_is_cut();
  legacy_snapshot_loads();
  limits_refuse_and_keep_everything();
  events_expire();
  TEST_MAIN_END();
}
