#include "core/podserver/pod_server_address.h"

namespace k32 {
namespace podserver {

bool pod_server_port(const json::Value& node, uint16_t* port) {
  const json::Value& p = node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"];
  if (!p.is_number() || p.as_int() < 1 || p.as_int() > 65535) return false;
  *port = static_cast<uint16_t>(p.as_int());
  return true;
}

bool pod_server_address(const json::Value& node, http::Endpoint* ep) {
  ep->host.clear();
  for (const auto& a : node["status"]["addresses"].items())
    if (a["type"].str() == "InternalIP") ep->host = a["address"].as_string();
  return !ep->host.empty() && pod_server_port(node, &ep->port);
}

bool pod_server_address(store::ObjectStore* st, const std::string& node, http::Endpoint* ep) {
  json::Value n;
  return st->get("nodes", "", node, &n) && pod_server_address(n, ep);
}

}  // namespace podserver
}  // namespace k32
