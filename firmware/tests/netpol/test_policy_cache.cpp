// How NetworkPolicy reaches a worker's pods, on a
// simulated clock: deny until loaded, relist every 5 s, labels per pod sync, 3 s pod cache.
#include <map>
#include <string>
#include <vector>

#include "check.h"
#include "test_fixture.h"
#include "core/json/json.h"
#include "core/netpol/policy_cache.h"
#include "k32_board.h"

using namespace k32;

static json::Value J(const std::string& text) { return k32test::parse_json(text); }

struct FakeApi {
  bool up = true;
  int lists = 0, pod_reads = 0;
  std::map<std::string, std::vector<json::Value>> policies;
  std::map<std::string, json::Value> pods;
};

static json::Value pod(const char* ns, const char* name, const char* app) {
  return J(std::string(R"({"metadata":{"namespace":")") + ns + R"(","name":")" + name + R"(","labels":{"app":")" + app +
           R"("}},"spec":{"containers":[{"name":"c","ports":[{"name":"http","containerPort":7000}]}]}})");
}

// One whole sync pass that lists `pods`.
static void sync_pass(netpol::PolicyCache& cache, const std::vector<const json::Value*>& pods) {
  cache.begin_pods();
  for (const json::Value* p : pods) cache.record_pod(*p);
  cache.end_pods();
}

int main() {
  FakeApi api;
  netpol::PolicyCache cache(
      K32_POLICY_RELIST_MS, K32_POLICY_POD_CACHE_MS,
      [&](const std::string& ns, std::vector<json::Value>* out) {
        ++api.lists;
        if (!api.up) return false;
        *out = api.policies[ns];
        return true;
      },
      [&](const std::string& key, json::Value* out) {
        ++api.pod_reads;
        auto it = api.pods.find(key);
        if (it == api.pods.end()) return false;
        *out = it->second;
        return true;
      },
      [&](const std::string& key, json::Value* out) {
        *out = J(R"({"metadata":{"name":")" + key + R"("}})");
        return true;
      });
  netpol::Destination out8000;
  out8000.ip = "10.0.0.5";
  out8000.port = 8000;

  // Not loaded yet: denied, with a reason.
  netpol::Verdict v = cache.check("default/probe", out8000, "", 0);
  CHECK(!v.allowed);
  CHECK(v.reason.find("not loaded") != std::string::npos);

  // The API is down when the first pod starts: still denied; the relist loads it later.
  api.up = false;
  CHECK(!cache.ensure_namespace("default", 0));
  CHECK(!cache.loaded("default"));
  CHECK(!cache.check("default/probe", out8000, "", 100).allowed);
  api.up = true;
  cache.relist_due(200);  // never-loaded namespaces are retried at once
  CHECK(cache.loaded("default"));
  json::Value probe = pod("default", "probe", "egress-probe");
  // Loaded, but the caller's labels were never recorded: denied, never judged label-less
  // (a deny-all selecting it by label would not apply to a label-less pod).
  v = cache.check("default/probe", out8000, "", 300);
  CHECK(!v.allowed);
  CHECK(v.reason.find("labels of pod default/probe not recorded") != std::string::npos);
  sync_pass(cache, {&probe});
  CHECK(cache.check("default/probe", out8000, "", 300).allowed);  // no policies: default allow

  // A deny-all policy appears: invisible until the relist interval, then applied.
  api.policies["default"].push_back(J(
      R"({"metadata":{"namespace":"default","name":"deny"},"spec":{"podSelector":{"matchLabels":{"app":"egress-probe"}},"policyTypes":["Egress"],"egress":[]}})"));
  int lists_before = api.lists;
  cache.relist_due(200 + K32_POLICY_RELIST_MS - 1);
  CHECK_EQ(api.lists, lists_before);
  CHECK(cache.check("default/probe", out8000, "", 200 + K32_POLICY_RELIST_MS - 1).allowed);
  cache.relist_due(200 + K32_POLICY_RELIST_MS);
  CHECK_EQ(api.lists, lists_before + 1);
  CHECK(!cache.check("default/probe", out8000, "", 200 + K32_POLICY_RELIST_MS).allowed);

  // The caller's labels change: applied from the next pod sync.
  json::Value relabelled = pod("default", "probe", "something-else");
  sync_pass(cache, {&relabelled});
  CHECK(cache.check("default/probe", out8000, "", 6000).allowed);
  sync_pass(cache, {&probe});
  CHECK(!cache.check("default/probe", out8000, "", 6001).allowed);

  // Label rules read the target pod once per K32_POLICY_POD_CACHE_MS.
  api.policies["default"].clear();
  api.policies["default"].push_back(J(
      R"({"metadata":{"namespace":"default","name":"to-db"},"spec":{"podSelector":{},"policyTypes":["Egress"],"egress":[{"to":[{"podSelector":{"matchLabels":{"app":"db"}}}],"ports":[{"port":"http"}]}]}})"));
  cache.relist_due(20000);
  api.pods["default/db-0"] = pod("default", "db-0", "db");
  netpol::Destination db;
  db.ip = "192.168.4.3";
  db.port = 7000;
  int reads0 = api.pod_reads;
  CHECK(cache.check("default/probe", db, "default/db-0", 20000).allowed);
  CHECK_EQ(api.pod_reads, reads0 + 1);
  api.pods["default/db-0"] = pod("default", "db-0", "not-db");
  CHECK(cache.check("default/probe", db, "default/db-0", 20000 + K32_POLICY_POD_CACHE_MS - 1).allowed);
  CHECK_EQ(api.pod_reads, reads0 + 1);
  CHECK(!cache.check("default/probe", db, "default/db-0", 20000 + K32_POLICY_POD_CACHE_MS).allowed);
  CHECK_EQ(api.pod_reads, reads0 + 2);

  // A pass whose list did not read to the end is never ended: a pod it did not reach keeps
  // its labels and its namespace stays loaded.
  auto recorded = [&](const char* key, uint64_t now) {
    return cache.check(key, out8000, "", now).reason.find("not recorded") == std::string::npos;
  };
  cache.begin_pods();
  CHECK(recorded("default/probe", 20001));
  CHECK(cache.loaded("default"));
  // A pod is recorded as its page is read, before the pass ends (it starts within the pass).
  json::Value other = pod("default", "other", "web");
  CHECK(!recorded("default/other", 20002));
  cache.record_pod(other);
  CHECK(recorded("default/other", 20002));
  // The next whole pass without `other`: forgotten.
  sync_pass(cache, {&probe});
  CHECK(!recorded("default/other", 20003));
  CHECK(recorded("default/probe", 20003));

  // A namespace whose last pod left is forgotten (and denied again until reloaded).
  sync_pass(cache, {});
  CHECK(!cache.loaded("default"));
  TEST_MAIN_END();
}
