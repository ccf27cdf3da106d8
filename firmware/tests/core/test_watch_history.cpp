// The watch history: bounded in bytes by its own budget (Limits::history_max, the board's
// watch_history), oldest events first, a watch from before them expired (410 Gone); the
// versions it names are the store's own bytes, shared, so only superseded and deleted
// versions count against it; what a watch reads back is each version as it was written.
#include <string>
#include <vector>

#include "check.h"
#include "core/store/object_store.h"
#include "core/util/text.h"

using k32::json::Value;
using k32::store::Event;
using k32::store::EventType;
using k32::store::Limits;
using k32::store::ObjectStore;
using k32::store::Result;

namespace {

Value cm(const std::string& name, size_t data_bytes, char fill = 'v') {
  Value v = Value::object();
  v.at_or_insert("metadata").set("name", name);
  v.set("data", Value::object()).set("k", std::string(data_bytes, fill));
  return v;
}

Limits with_history(uint64_t history_max) { return Limits{1u << 20, 1u << 24, 1u << 22, history_max}; }

// The oldest version a watch may still start from: the events after it are all there.
uint64_t oldest_watchable(ObjectStore* st) {
  uint64_t since = st->current_rv();
  for (;;) {
    if (since == 0) return 0;
    std::vector<Event> evs;
    bool expired = false;
    st->events_since(since - 1, &evs, &expired);
    if (expired) return since;
    --since;
  }
}

// Rewriting one 1.5 KB object: each update leaves the version before it to the history only,
// so a 20000-byte budget keeps about a dozen of them, whatever the store's own budget is.
void bounded_by_its_budget() {
  const uint64_t budget = 20000;
  ObjectStore st(with_history(budget));
  std::string err;
  CHECK(st.open("", &err));
  Value stored;
  CHECK(st.create("configmaps", "default", "big", cm("big", 1500, 'a'), &stored) == Result::Ok);
  for (int i = 1; i <= 40; ++i)
    CHECK(st.update("configmaps", "default", "big", cm("big", 1500, static_cast<char>('a' + i % 26)), 0, &stored) == Result::Ok);
  CHECK(st.history_bytes() <= budget);
  CHECK(st.history_bytes() > budget / 2);
  std::vector<Event> evs;
  bool expired = false;
  st.events_since(0, &evs, &expired);
  CHECK(expired);  // 410 Gone for a watch from the start
  CHECK(evs.empty());
  uint64_t since = oldest_watchable(&st);
  uint64_t kept = st.current_rv() - since;
  CHECK(kept >= 8 && kept <= 14);
  CHECK_EQ(st.history_events(), static_cast<size_t>(kept));
  // Every event the history kept reads back as written: the new version and the one before.
  evs.clear();
  st.events_since(since, &evs, &expired);
  CHECK(!expired);
  CHECK_EQ(evs.size(), static_cast<size_t>(kept));
  for (const auto& ev : evs) {
    int i = static_cast<int>(ev.rv) - 1;  // update i made version i + 1
    CHECK(ev.type == EventType::Modified);
    CHECK_EQ(ev.resource, std::string("configmaps"));
    CHECK_EQ(ev.ns, std::string("default"));
    CHECK_EQ(ev.name, std::string("big"));
    CHECK_EQ(ev.object["data"]["k"].str(), std::string(1500, static_cast<char>('a' + i % 26)));
    CHECK_EQ(ev.prev["data"]["k"].str(), std::string(1500, static_cast<char>('a' + (i - 1) % 26)));
    CHECK_EQ(ev.object.path_str({"metadata", "resourceVersion"}), k32::text::to_string(static_cast<int64_t>(ev.rv)));
    CHECK_EQ(ev.prev.path_str({"metadata", "resourceVersion"}), k32::text::to_string(static_cast<int64_t>(ev.rv - 1)));
  }
  // A watch from just before the newest change still gets it: the newest event always stays.
  ObjectStore tiny(with_history(10));
  CHECK(tiny.open("", &err));
  CHECK(tiny.create("configmaps", "default", "x", cm("x", 500), &stored) == Result::Ok);
  CHECK(tiny.update("configmaps", "default", "x", cm("x", 600), 0, &stored) == Result::Ok);
  evs.clear();
  tiny.events_since(tiny.current_rv() - 1, &evs, &expired);
  CHECK(!expired);
  CHECK_EQ(evs.size(), 1u);
  tiny.events_since(tiny.current_rv() - 2, &evs, &expired);
  CHECK(expired);
}

// Creating objects costs the history only its events' bookkeeping: the current versions are
// the store's. 200 objects of 1000 bytes each (200 KB) keep every Added event in 32 KiB;
// deleting them hands their last versions to the history, which then drops its oldest events.
void current_versions_are_shared() {
  const uint64_t budget = 32768;
  ObjectStore st(with_history(budget));
  std::string err;
  CHECK(st.open("", &err));
  Value stored;
  for (int i = 0; i < 200; ++i)
    CHECK(st.create("configmaps", "default", "c" + std::to_string(i), cm("c" + std::to_string(i), 1000), &stored) == Result::Ok);
  std::vector<Event> evs;
  bool expired = true;
  st.events_since(0, &evs, &expired);
  CHECK(!expired);
  CHECK_EQ(evs.size(), 200u);
  CHECK(st.history_bytes() < 200 * 200);  // bookkeeping only
  for (size_t i = 0; i < evs.size(); ++i) {
    CHECK(evs[i].type == EventType::Added);
    CHECK_EQ(evs[i].name, "c" + std::to_string(i));
    CHECK_EQ(evs[i].object["data"]["k"].str().size(), 1000u);
    CHECK(evs[i].prev.is_null());
  }
  uint64_t before_deletes = st.current_rv();
  Value removed;
  for (int i = 0; i < 200; ++i) CHECK(st.remove("configmaps", "default", "c" + std::to_string(i), 0, &removed) == Result::Ok);
  CHECK(st.history_bytes() <= budget);
  evs.clear();
  st.events_since(0, &evs, &expired);
  CHECK(expired);
  // The deletes still held are whole: the last object, with the deletion's resourceVersion.
  uint64_t since = oldest_watchable(&st);
  CHECK(since > before_deletes);
  evs.clear();
  st.events_since(since, &evs, &expired);
  CHECK(!expired);
  CHECK(evs.size() >= 20);
  for (const auto& ev : evs) {
    CHECK(ev.type == EventType::Deleted);
    CHECK_EQ(ev.object["data"]["k"].str().size(), 1000u);
    CHECK_EQ(ev.object.path_str({"metadata", "name"}), ev.name);
    CHECK_EQ(ev.object.path_str({"metadata", "resourceVersion"}), k32::text::to_string(static_cast<int64_t>(ev.rv)));
  }
  // Once every event naming a deleted version is gone, so are its bytes.
  for (int i = 0; i < 1000; ++i)
    CHECK(st.create("configmaps", "other", "n" + std::to_string(i), cm("n", 1), &stored) == Result::Ok);
  CHECK(st.history_bytes() <= budget);
  evs.clear();
  st.events_since(oldest_watchable(&st), &evs, &expired);
  for (const auto& ev : evs) CHECK(ev.type == EventType::Added);
}

// Listeners see every committed change with its object, in commit order, as before.
void listeners_see_the_object() {
  ObjectStore st(with_history(1000));
  std::string err;
  CHECK(st.open("", &err));
  std::vector<std::string> seen;
  st.add_listener([&](const Event& ev) {
    seen.push_back(std::string(ev.type == EventType::Added      ? "A"
                               : ev.type == EventType::Modified ? "M"
                                                                : "D") +
                   ":" + ev.object["data"]["k"].str() + ":" + ev.object.path_str({"metadata", "resourceVersion"}));
  });
  Value stored, removed;
  CHECK(st.create("configmaps", "default", "a", cm("a", 2, 'x'), &stored) == Result::Ok);
  CHECK_EQ(stored["data"]["k"].str(), std::string("xx"));
  CHECK(st.update("configmaps", "default", "a", cm("a", 3, 'y'), 0, &stored) == Result::Ok);
  CHECK_EQ(stored.path_str({"metadata", "resourceVersion"}), std::string("2"));
  CHECK(st.remove("configmaps", "default", "a", 0, &removed) == Result::Ok);
  CHECK_EQ(removed["data"]["k"].str(), std::string("yyy"));
  CHECK_EQ(removed.path_str({"metadata", "resourceVersion"}), std::string("3"));
  CHECK_EQ(seen.size(), 3u);
  CHECK_EQ(seen[0], std::string("A:xx:1"));
  CHECK_EQ(seen[1], std::string("M:yyy:2"));
  CHECK_EQ(seen[2], std::string("D:yyy:3"));
}

}  // namespace

int main() {
  bounded_by_its_budget();
  current_versions_are_shared();
  listeners_see_the_object();
  TEST_MAIN_END();
}
