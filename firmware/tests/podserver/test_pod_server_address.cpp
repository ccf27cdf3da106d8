// A node's pod server address as the API server (port-forward, logs), the ingress and Service
// calls read it from the Node object: the InternalIP and the kubelet endpoint's port, which
// must be 1-65535 (70000 would otherwise wrap to port 4464 of the same node).
#include <string>

#include "check.h"
#include "core/json/json.h"
#include "core/podserver/pod_server_address.h"

using namespace k32;

static json::Value node_json(const std::string& status) {
  json::Value v;
  json::ParseError pe;
  CHECK(json::parse("{\"status\":" + status + "}", &v, &pe));
  return v;
}

int main() {
  const std::string addrs =
      "\"addresses\":[{\"type\":\"Hostname\",\"address\":\"w1\"},{\"type\":\"InternalIP\",\"address\":\"10.0.0.7\"}]";
  http::Endpoint ep;
  CHECK(
      podserver::pod_server_address(node_json("{" + addrs + ",\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":7001}}}"), &ep));
  CHECK_EQ(ep.host, std::string("10.0.0.7"));
  CHECK_EQ(ep.port, 7001);

  for (const char* bad : {"70000", "0", "-1", "\"7001\"", "null", "65536"}) {
    uint16_t port = 1;
    json::Value n = node_json("{" + addrs + ",\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":" + bad + "}}}");
    CHECK(!podserver::pod_server_port(n, &port));
    CHECK(!podserver::pod_server_address(n, &ep));
  }
  CHECK(!podserver::pod_server_address(node_json("{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":7001}}}"), &ep));
  CHECK(!podserver::pod_server_address(node_json("{" + addrs + "}"), &ep));
  uint16_t port = 0;
  CHECK(podserver::pod_server_port(node_json("{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":65535}}}"), &port));
  CHECK_EQ(port, 65535);
  TEST_MAIN_END();
}
