// What one object costs the control plane's heap once written through the API's write path
// (defaults, managedFields, the store and its watch-history event): a ConfigMap with 1 KB of
// data must cost at most 2 KiB on a 32-bit build (the boards' word size). Measured with the
// node's own allocator accounting, over many objects so nothing one-off counts.
#include <cstdio>
#include <string>

#include "check.h"
#include "core/api/api_server.h"
#include "core/json/json.h"
#include "port.h"
#include "test_fixture.h"

using namespace k32;

namespace {

// As `k32 bench api --data-bytes 1024` makes them: an index and 64-byte values, 1024 bytes.
json::Value configmap(int i) {
  json::Value v = json::Value::object();
  v.set("apiVersion", "v1");
  v.set("kind", "ConfigMap");
  json::Value& md = v.at_or_insert("metadata");
  md.set("name", "bench-" + std::to_string(1000 + i));
  md.at_or_insert("labels").set("bench", "api");
  json::Value data = json::Value::object();
  std::string index = std::to_string(i);
  data.set("index", index);
  size_t left = 1024 - index.size();
  for (int k = 0; left > 0; ++k) {
    size_t n = left < 64 ? left : 64;
    data.set((k < 10 ? "k0" : "k") + std::to_string(k), std::string(n, 'x'));
    left -= n;
  }
  v.set("data", std::move(data));
  return v;
}

}  // namespace

int main() {
  k32test::ApiFixture fx;
  store::ObjectStore& st = fx.st;
  api::ApiServer& api = fx.api();
  const api::ResourceInfo* res = api::find_by_kind("v1", "ConfigMap");
  CHECK(res != nullptr);
  if (!res) TEST_MAIN_END();
  // The first writes set up what every later one shares (schema lookups, static strings).
  for (int i = 0; i < 5; ++i) {
    json::Value out;
    CHECK(api.local_create(*res, "default", configmap(900 + i), &out).ok());
  }
  const int n = 50;
  uint64_t before = k32test::heap_in_use();
  for (int i = 0; i < n; ++i) {
    json::Value out;
    CHECK(api.local_create(*res, "default", configmap(i), &out).ok());
  }
  uint64_t after = k32test::heap_in_use();
  CHECK(after > before);
  double per_object = static_cast<double>(after - before) / n;
  std::printf("a 1 KB ConfigMap costs %.0f bytes of heap (%u-bit build, store + watch history)\n", per_object,
              static_cast<unsigned>(sizeof(void*) * 8));
  // The target is the boards' (32-bit); a 64-bit build's pointers and strings are larger.
  if (sizeof(void*) == 4) CHECK(per_object <= 2048);
  // The objects read back whole, managedFields included.
  json::Value got;
  CHECK(st.get("configmaps", "default", "bench-1007", &got));
  CHECK_EQ(got["data"].size(), 17u);
  CHECK_EQ(got["data"]["k03"].str(), std::string(64, 'x'));
  const json::Value& mf = got["metadata"]["managedFields"];
  CHECK_EQ(mf.size(), 1u);
  CHECK_EQ(mf.items()[0]["manager"].str(), std::string("kube-controller-manager"));
  CHECK_EQ(mf.items()[0]["operation"].str(), std::string("Update"));
  CHECK_EQ(mf.items()[0]["fieldsType"].str(), std::string("FieldsV1"));
  CHECK(mf.items()[0]["fieldsV1"]["f:data"].find("f:k03") != nullptr);
  CHECK(mf.items()[0]["fieldsV1"]["f:metadata"]["f:labels"].find("f:bench") != nullptr);
  TEST_MAIN_END();
}
