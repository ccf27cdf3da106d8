// The metrics API's records: CPU in nanocores from two readings over the window between them
// (a pod's first reading counts from its start), a restart or a counter going back starts
// over, reports are validated whole before anything is kept, and a node's pods that leave its
// report leave the records, as do a deleted Node's.
#include <string>

#include "port.h"
#include "test_fixture.h"

#include "check.h"
#include "core/api/metrics_store.h"
#include "core/json/json.h"

using namespace k32;

static json::Value report(int64_t t_us, int64_t node_cpu, const std::string& uid, int64_t cpu, int64_t mem, int64_t started) {
  json::Value r = json::Value::object();
  r.set("timeUs", t_us);
  r.set("cpuUs", node_cpu);
  r.set("heapInternal", int64_t{1000});
  r.set("heapPsram", int64_t{500});
  json::Value& pods = r.set("pods", json::Value::array());
  if (!uid.empty()) {
    json::Value p = json::Value::object();
    p.set("uid", uid);
    json::Value& cs = p.set("containers", json::Value::array());
    json::Value c = json::Value::object();
    c.set("cpuUs", cpu);
    c.set("memory", mem);
    c.set("startedUs", started);
    cs.push(c);
    pods.push(p);
  }
  return r;
}

int main() {
  auto* m = new api::MetricsStore();
  std::string err;
  // First reading: 0.5 s of interpreter time since the pod started 1 s before.
  CHECK(m->take_report("n1", report(2000000, 600000, "uid-a", 500000, 131072, 1000000), &err));
  api::MetricsStore::PodUsage pu;
  CHECK(m->pod_usage("uid-a", &pu));
  CHECK_EQ(pu.containers, 1);
  CHECK_EQ(pu.c[0].cpu_nanocores, 500000000u);  // half a core
  CHECK_EQ(pu.c[0].memory, 131072u);
  CHECK_EQ(pu.window_ms, 1000u);
  api::MetricsStore::NodeUsage nu;
  CHECK(m->node_usage("n1", &nu));
  CHECK_EQ(nu.memory, 1500u);
  CHECK_EQ(nu.heap_internal, 1000u);
  // Second reading 10 s later with 1 s more: a tenth of a core over a 10 s window.
  CHECK(m->take_report("n1", report(12000000, 1600000, "uid-a", 1500000, 196608, 1000000), &err));
  CHECK(m->pod_usage("uid-a", &pu));
  CHECK_EQ(pu.c[0].cpu_nanocores, 100000000u);
  CHECK_EQ(pu.window_ms, 10000u);
  CHECK_EQ(pu.c[0].memory, 196608u);
  CHECK(m->node_usage("n1", &nu));
  CHECK_EQ(nu.cpu_nanocores, 100000000u);
  // The counter went back (the container was made again): counted from its start again.
  CHECK(m->take_report("n1", report(14000000, 1700000, "uid-a", 100000, 65536, 13000000), &err));
  CHECK(m->pod_usage("uid-a", &pu));
  CHECK_EQ(pu.c[0].cpu_nanocores, 100000000u);  // 0.1 s over the 1 s since 13 s
  // A second container (kept beside the first) is counted from its own start; back to one,
  // the pod's record is the first container's alone.
  json::Value two = report(15000000, 1700000, "uid-a", 200000, 65536, 13000000);
  json::Value& containers = two.at_or_insert("pods").items()[0].at_or_insert("containers");
  json::Value c2 = containers.items()[0];
  c2.set("cpuUs", int64_t{300000});
  c2.set("memory", int64_t{4096});
  c2.set("startedUs", int64_t{14000000});
  containers.push(c2);
  CHECK(m->take_report("n1", two, &err));
  CHECK(m->pod_usage("uid-a", &pu));
  CHECK_EQ(pu.containers, 2);
  CHECK_EQ(pu.c[1].memory, 4096u);
  CHECK_EQ(pu.c[1].cpu_nanocores, 300000000u);  // 0.3 s over the 1 s since 14 s
  CHECK(m->take_report("n1", report(16000000, 1700000, "uid-a", 200000, 65536, 13000000), &err));
  CHECK(m->pod_usage("uid-a", &pu));
  CHECK_EQ(pu.containers, 1);
  CHECK_EQ(pu.c[0].memory, 65536u);
  // A pod that leaves the node's report leaves the records.
  CHECK(m->take_report("n1", report(17000000, 1700000, "", 0, 0, 0), &err));
  CHECK(!m->pod_usage("uid-a", &pu));
  // Invalid reports change nothing and say why.
  json::Value bad = report(18000000, 1, "uid-b", -5, 0, 0);
  CHECK(!m->take_report("n1", bad, &err) && err.find("non-negative") != std::string::npos);
  CHECK(!m->pod_usage("uid-b", &pu));
  CHECK(!m->take_report("n1", report(18000000, 1, std::string(40, 'u'), 1, 1, 1), &err));
  // A uid kubectl top could never look up (here with a NUL inside) is refused, not kept.
  CHECK(!m->take_report("n1", report(18000000, 1, std::string("uid-\0c", 6), 1, 1, 1), &err) &&
        err.find("letters, digits and dashes") != std::string::npos);
  CHECK(!m->take_report("", report(1, 1, "", 0, 0, 0), &err));
  json::Value no_pods = report(1, 1, "", 0, 0, 0);
  no_pods.set("pods", "none");
  CHECK(!m->take_report("n2", no_pods, &err) && err.find("pods array") != std::string::npos);
  CHECK(!m->node_usage("n2", &nu));
  // Nodes past the record count are refused with the reason.
  bool refused = false;
  for (uint32_t i = 0; i < K32_METRICS_NODES_MAX + 1; ++i)
    if (!m->take_report("node-" + std::to_string(i), report(1000, 0, "", 0, 0, 0), &err)) refused = true;
  CHECK(refused && err.find("has no room") != std::string::npos);
  // A deleted Node's record and its pods' are freed: the next node takes its place.
  CHECK(m->take_report("n1", report(20000000, 1, "uid-d", 1, 1, 1), &err));
  CHECK(m->pod_usage("uid-d", &pu));
  CHECK(!m->take_report("node-late", report(1000, 0, "", 0, 0, 0), &err));
  m->forget_node("n1");
  CHECK(!m->node_usage("n1", &nu) && !m->pod_usage("uid-d", &pu));
  CHECK(m->take_report("node-late", report(1000, 0, "uid-e", 1, 1, 1), &err));
  CHECK(m->node_usage("node-late", &nu) && m->pod_usage("uid-e", &pu));
  delete m;

  // The records cost what they hold: a pod's with one container is under 100 bytes on a 32-bit
  // board, and a table that held many nodes and pods gives their room back as they leave.
  m = new api::MetricsStore();
  CHECK(m->take_report("n0", report(1000, 0, "", 0, 0, 0), &err));
  const uint64_t one_node = k32test::heap_in_use();
  constexpr int kPods = 32;
  {
    json::Value many = report(2000, 0, "", 0, 0, 0);
    for (int i = 0; i < kPods; ++i) {
      json::Value one = report(2000, 0, "uid-" + std::to_string(i), 1, 1, 1);
      many.at_or_insert("pods").push(one["pods"].items()[0]);
    }
    CHECK(m->take_report("n0", many, &err));
  }  // the report itself gone, only the records are left
  const uint64_t per_pod = (k32test::heap_in_use() - one_node) / kPods;
  CHECK(per_pod > 0 && per_pod <= (sizeof(void*) == 4 ? 100u : 160u));
  for (int i = 1; i < static_cast<int>(K32_METRICS_NODES_MAX); ++i)
    CHECK(m->take_report("n" + std::to_string(i), report(1000, 0, "", 0, 0, 0), &err));
  for (int i = 1; i < static_cast<int>(K32_METRICS_NODES_MAX); ++i) m->forget_node("n" + std::to_string(i));
  CHECK(m->take_report("n0", report(3000, 0, "", 0, 0, 0), &err));
  CHECK_EQ(k32test::heap_in_use(), one_node);
  delete m;
  TEST_MAIN_END();
}
