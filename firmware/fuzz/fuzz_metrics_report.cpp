// libFuzzer target: a node's usage report (the JSON body a node POSTs to .../nodes/<node>/usage)
// -> MetricsStore::take_report, which kubectl top reads from. A report is validated whole
// before anything of it is kept, so a refused one (it must say why) leaves the node's and its
// pods' readings exactly as they were; an accepted one becomes what the node and each of its
// listed pods read, and a pod the node no longer lists has no readings any more.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/api/metrics_store.h"
#include "core/json/json.h"
#include "fuzz_check.h"

using namespace k32;
using api::MetricsStore;

namespace {

const char* const kNode = "node-a";
const char* const kKnownPod = "uid-known";

json::Value known_report() {
  json::Value r = json::Value::object();
  r.set("timeUs", int64_t{5000000});
  r.set("cpuUs", int64_t{700000});
  r.set("heapInternal", int64_t{4096});
  r.set("heapPsram", int64_t{8192});
  json::Value& pods = r.set("pods", json::Value::array());
  json::Value p = json::Value::object();
  p.set("uid", kKnownPod);
  json::Value& cs = p.set("containers", json::Value::array());
  json::Value c = json::Value::object();
  c.set("cpuUs", int64_t{300000});
  c.set("memory", int64_t{65536});
  c.set("startedUs", int64_t{1000000});
  cs.push(c);
  pods.push(p);
  return r;
}

struct Reading {
  bool node_ok = false, pod_ok = false;
  MetricsStore::NodeUsage node;
  MetricsStore::PodUsage pod;
};

Reading read(MetricsStore* m) {
  Reading r;
  r.node_ok = m->node_usage(kNode, &r.node);
  r.pod_ok = m->pod_usage(kKnownPod, &r.pod);
  return r;
}

bool same(const Reading& a, const Reading& b) {
  if (a.node_ok != b.node_ok || a.pod_ok != b.pod_ok) return false;
  if (a.node_ok && (a.node.cpu_nanocores != b.node.cpu_nanocores || a.node.memory != b.node.memory ||
                    a.node.heap_internal != b.node.heap_internal || a.node.heap_psram != b.node.heap_psram ||
                    a.node.window_ms != b.node.window_ms))
    return false;
  if (!a.pod_ok) return true;
  if (a.pod.containers != b.pod.containers || a.pod.window_ms != b.pod.window_ms) return false;
  for (uint8_t i = 0; i < a.pod.containers; ++i)
    if (a.pod.c[i].memory != b.pod.c[i].memory || a.pod.c[i].cpu_nanocores != b.pod.c[i].cpu_nanocores) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  json::Value report;
  json::ParseError perr;
  if (!json::parse(reinterpret_cast<const char*>(data), size, &report, &perr)) return 0;

  MetricsStore m;
  std::string err;
  FUZZ_CHECK(m.take_report(kNode, known_report(), &err), "the known report was refused: %s", err.c_str());
  const Reading before = read(&m);
  FUZZ_CHECK(before.node_ok && before.pod_ok, "the known report left no readings");

  err.clear();
  if (!m.take_report(kNode, report, &err)) {
    FUZZ_CHECK(!err.empty(), "a refused report without a reason");
    FUZZ_CHECK(same(before, read(&m)), "a refused report changed the readings (%s)", err.c_str());
    return 0;
  }
  MetricsStore::NodeUsage nu;
  FUZZ_CHECK(m.node_usage(kNode, &nu), "an accepted report left the node without readings");
  FUZZ_CHECK(static_cast<int64_t>(nu.heap_internal) == report["heapInternal"].as_int(-1) &&
                 static_cast<int64_t>(nu.heap_psram) == report["heapPsram"].as_int(-1),
             "the node's heap is not the one reported");
  // A uid listed more than once: its last entry is what it reads. The known pod's record is
  // freed only after the report is taken, so a report of as many pods as there are records
  // leaves one of them without readings until the next report.
  const auto& pods = report["pods"].items();
  size_t distinct = 0;
  bool known_listed = false;
  for (size_t i = 0; i < pods.size(); ++i) {
    bool later = false;
    for (size_t j = i + 1; j < pods.size() && !later; ++j) later = pods[j]["uid"].str() == pods[i]["uid"].str();
    distinct += later ? 0 : 1;
    known_listed |= pods[i]["uid"].str() == kKnownPod;
  }
  const bool all_fit = distinct + (known_listed ? 0 : 1) <= K32_METRICS_PODS_MAX;
  for (size_t i = 0; i < pods.size(); ++i) {
    const std::string& uid = pods[i]["uid"].str();
    bool later = false;
    for (size_t j = i + 1; j < pods.size() && !later; ++j) later = pods[j]["uid"].str() == uid;
    if (later) continue;
    MetricsStore::PodUsage pu;
    if (!m.pod_usage(uid, &pu)) {
      FUZZ_CHECK(!all_fit, "pod %s of an accepted report has no readings", uid.c_str());
      continue;
    }
    const auto& cs = pods[i]["containers"].items();
    FUZZ_CHECK(pu.containers == cs.size(), "pod %s reads %u containers, reported %zu", uid.c_str(), pu.containers, cs.size());
    for (size_t k = 0; k < cs.size(); ++k)
      FUZZ_CHECK(static_cast<int64_t>(pu.c[k].memory) == cs[k]["memory"].as_int(-1), "pod %s container %zu memory", uid.c_str(),
                 k);
  }
  MetricsStore::PodUsage gone;
  FUZZ_CHECK(known_listed || !m.pod_usage(kKnownPod, &gone), "a pod the node no longer lists still has readings");
  return 0;
}
