// Object store: versions, conflicts, watch history and crash-safe persistence.
#include <cstdint>
#include <cstdio>
#include <string>

#include "check.h"
#include "core/store/object_store.h"
#include "port.h"

using k32::json::Value;
using k32::store::ObjectStore;
using k32::store::Result;

static Value cm(const char* name) {
  Value v = Value::object();
  v.at_or_insert("metadata").set("name", name);
  v.set("data", Value::object()).set("k", "v");
  return v;
}

int main() {
  // A fresh folder through the port (mkdtemp is POSIX; the bare-metal build has only the port).
  uint8_t rnd[8];
  k32::port::random_fill(rnd, sizeof rnd);
  char name[64];
  std::snprintf(name, sizeof name, "/tmp/k32-store-%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
                rnd[5], rnd[6], rnd[7]);
  std::string dir = name;
  CHECK(k32::port::dir_ensure(dir.c_str()));
  std::string err;
  {
    ObjectStore st;
    CHECK(st.open(dir, &err));
    Value stored;
    CHECK(st.create("configmaps", "default", "a", cm("a"), &stored) == Result::Ok);
    CHECK_EQ(stored.path_str({"metadata", "resourceVersion"}), std::string("1"));
    CHECK(st.create("configmaps", "default", "a", cm("a"), &stored) == Result::Exists);
    CHECK(st.create("configmaps", "other", "b", cm("b"), &stored) == Result::Ok);
    CHECK(st.update("configmaps", "default", "a", cm("a"), 99, &stored) == Result::Conflict);
    CHECK(st.update("configmaps", "default", "a", cm("a"), 1, &stored) == Result::Ok);
    CHECK(st.update("configmaps", "default", "zzz", cm("zzz"), 0, &stored) == Result::NotFound);
    CHECK_EQ(st.list("configmaps", "", nullptr).size(), 2u);
    CHECK_EQ(st.list("configmaps", "default", nullptr).size(), 1u);
    std::vector<k32::store::Event> evs;
    bool expired = true;
    st.events_since(1, &evs, &expired);
    CHECK(!expired);
    CHECK_EQ(evs.size(), 2u);
    Value removed;
    CHECK(st.remove("configmaps", "other", "b", 0, &removed) == Result::Ok);
    CHECK_EQ(st.current_rv(), 4u);
  }
  {
    // Reload: same objects and version; history before the restart is expired.
    ObjectStore st;
    CHECK(st.open(dir, &err));
    CHECK_EQ(st.current_rv(), 4u);
    Value got;
    CHECK(st.get("configmaps", "default", "a", &got));
    CHECK(!st.get("configmaps", "other", "b", &got));
    std::vector<k32::store::Event> evs;
    bool expired = false;
    st.events_since(2, &evs, &expired);
    CHECK(expired);
    st.events_since(4, &evs, &expired);
    CHECK(!expired);
  }
  {
    // A torn record at the end (a crash mid-append) is dropped; everything before survives.
    std::string log = dir + "/objects.log";
    const char junk[] = "\x40\x00\x00\x00\x12\x34\x56\x78{\"t\":\"p\"";
    CHECK(k32::port::file_append_sync(log.c_str(), junk, sizeof junk - 1));
    ObjectStore st;
    CHECK(st.open(dir, &err));
    Value got;
    CHECK(st.get("configmaps", "default", "a", &got));
    CHECK_EQ(st.current_rv(), 4u);
    Value stored;
    CHECK(st.create("configmaps", "default", "c", cm("c"), &stored) == Result::Ok);
  }
  {
    ObjectStore st;
    CHECK(st.open(dir, &err));
    Value got;
    CHECK(st.get("configmaps", "default", "c", &got));
    CHECK_EQ(st.current_rv(), 5u);
  }
  TEST_MAIN_END();
}
