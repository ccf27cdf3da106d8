// Kubelet admission: memory is charged per container as the larger of request and limit
// (linear memory grows to the limit, unless the image cannot), bound pods add up, pod slots count, and the
// rejection reads as a kubelet's (OutOfmemory / OutOfpods with requested/used/capacity).
#include <string>

#include "check.h"
#include "core/json/json.h"
#include "core/kubelet/admission.h"

using namespace k32;
using namespace k32::kubelet;

static json::Value pod(const char* resources) {
  std::string s = std::string(R"({"spec":{"containers":[{"name":"a","resources":)") + resources + R"(},{"name":"b"}]}})";
  json::Value v;
  json::ParseError pe;
  CHECK(json::parse(s, &v, &pe));
  return v;
}

int main() {
  NodeBudget node;
  node.memory = 4 * 1024 * 1024;
  node.pods = 3;

  // requests 64Ki, limits 1Gi: charged 1Gi, which no 4Mi node has
  AdmitResult r = admit_pod(pod(R"({"requests":{"memory":"64Ki"},"limits":{"memory":"1Gi"}})"), node, 0, 0);
  CHECK(!r.admitted);
  CHECK_EQ(r.reason, std::string("OutOfmemory"));
  CHECK_EQ(r.message, std::string("Pod was rejected: Node didn't have enough resource: memory, requested: 1073741824, "
                                  "used: 0, capacity: 4194304"));

  // a request above its limit counts the request; what already runs is subtracted
  r = admit_pod(pod(R"({"requests":{"memory":"3Mi"},"limits":{"memory":"1Mi"}})"), node, 0, 0);
  CHECK(r.admitted);
  CHECK_EQ(r.charge, 3 * 1024 * 1024);
  r = admit_pod(pod(R"({"limits":{"memory":"2Mi"}})"), node, 3 * 1024 * 1024, 1);
  CHECK(!r.admitted && r.reason == "OutOfmemory");
  CHECK(r.message.find("used: 3145728") != std::string::npos);
  r = admit_pod(pod(R"({"limits":{"memory":"1Mi"}})"), node, 3 * 1024 * 1024, 1);
  CHECK(r.admitted);

  // no memory named: charged nothing (the runtime caps it at the default pages)
  r = admit_pod(pod("{}"), node, node.memory, 1);
  CHECK(r.admitted && r.charge == 0);

  // pod slots
  r = admit_pod(pod("{}"), node, 0, 3);
  CHECK(!r.admitted && r.reason == "OutOfpods");

  // the node's per-pod overhead is charged with every pod: a 64Ki pod with 20Ki of overhead
  // takes 84Ki, so one fits in 96Ki and a second does not
  NodeBudget small;
  small.memory = 96 * 1024;
  small.pods = 4;
  small.overhead = 20 * 1024;
  r = admit_pod(pod(R"({"limits":{"memory":"64Ki"}})"), small, 0, 0);
  CHECK(r.admitted && r.charge == 84 * 1024);
  r = admit_pod(pod(R"({"limits":{"memory":"64Ki"}})"), small, 84 * 1024, 1);
  CHECK(!r.admitted && r.reason == "OutOfmemory");
  CHECK(r.message.find("requested: 86016, used: 86016, capacity: 98304") != std::string::npos);

  // an image built into the firmware whose linear memory never grows is charged what it can
  // reach (echo: its data and shadow stack, well under one page), not its larger limit
  json::Value echo;
  json::ParseError pe;
  CHECK(json::parse(R"({"spec":{"containers":[{"name":"e","image":"wasm://embedded/echo",)"
                    R"("resources":{"limits":{"memory":"64Ki"}}}]}})",
                    &echo, &pe));
  r = admit_pod(echo, small, 0, 0);
  CHECK(r.admitted && r.charge > small.overhead && r.charge < 84 * 1024);
  // a request above the reach is charged as written
  CHECK(json::parse(R"({"spec":{"containers":[{"name":"e","image":"wasm://embedded/echo",)"
                    R"("resources":{"requests":{"memory":"60Ki"},"limits":{"memory":"64Ki"}}}]}})",
                    &echo, &pe));
  r = admit_pod(echo, small, 0, 0);
  CHECK(r.admitted && r.charge == 80 * 1024);

  // a malformed quantity is the container's config error, not an admission matter
  r = admit_pod(pod(R"({"limits":{"memory":"lots"}})"), node, 0, 0);
  CHECK(r.admitted);
  TEST_MAIN_END();
}
