// In-process writes (the controllers' ApiServer::local_create / local_update) are held to
// the node's heap reserve as API clients' writes are: with the heap filled to just above the
// reserve, a controller's write is refused with 507 before it starts and stores nothing, and
// after the heap is given back the same write succeeds. Before, a ReplicaSet creating its pods
// took the reserve and the node's next allocation of its own stopped it.
#include <vector>

#include "check.h"
#include "test_fixture.h"
#include "core/api/api_server.h"
#include "core/json/json.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;
using k32test::parse_json;

static const char* kConfigMap =
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\"},"
    "\"data\":{\"a\":\"0123456789012345678901234567890123456789\"}}";

// Takes heap in `region` until no more than `leave` bytes of it stay available.
static void fill(port::Region region, uint64_t leave, std::vector<void*>* held) {
  constexpr size_t kBlock = size_t{1} << 20;
  for (size_t block = kBlock; block >= 64; block /= 2) {
    while (port::mem_available(region) > leave + block) {
      void* p = port::mem_alloc(block, region);
      if (!p) break;
      held->push_back(p);
    }
  }
}

int main() {
  k32test::ApiFixture fx;
  store::ObjectStore& st = fx.st;
  api::ApiServer& api = fx.api();
  json::Value stored;
  const api::ResourceInfo* cm_res = api::find_by_kind("v1", "ConfigMap");
  CHECK(cm_res != nullptr);

  // Every region a write may take, filled to a little above the reserve.
  std::vector<void*> held;
  fill(port::Region::Psram, K32_HEAP_RESERVE_BYTES + 512, &held);
  fill(port::Region::Internal, K32_HEAP_RESERVE_BYTES + 512, &held);
  fill(port::Region::Any, K32_HEAP_RESERVE_BYTES + 512, &held);
  CHECK(port::mem_available(port::Region::Any) < K32_HEAP_RESERVE_BYTES + 4096);

  api::ApiError e = api.local_create(*cm_res, "default", parse_json(kConfigMap), &stored);
  CHECK_EQ(e.code, 507);
  CHECK_EQ(e.reason, std::string("InsufficientStorage"));
  json::Value got;
  CHECK(!st.get("configmaps", "default", "cm", &got));

  for (void* p : held) port::mem_free(p);
  held.clear();
  e = api.local_create(*cm_res, "default", parse_json(kConfigMap), &stored);
  CHECK(e.ok());
  CHECK(st.get("configmaps", "default", "cm", &got));

  // An update is held to the reserve the same way.
  fill(port::Region::Psram, K32_HEAP_RESERVE_BYTES + 512, &held);
  fill(port::Region::Internal, K32_HEAP_RESERVE_BYTES + 512, &held);
  fill(port::Region::Any, K32_HEAP_RESERVE_BYTES + 512, &held);
  json::Value upd = got;
  upd.at_or_insert("data").set("b", "more");
  e = api.local_update(*cm_res, got, upd, "", &stored);
  CHECK_EQ(e.code, 507);
  for (void* p : held) port::mem_free(p);
  CHECK(api.local_update(*cm_res, got, upd, "", &stored).ok());
  TEST_MAIN_END();
}
