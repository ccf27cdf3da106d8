// Where a node's pod server listens, read from its Node object: the InternalIP address and
// status.daemonEndpoints.kubeletEndpoint.Port. Node status is written by whoever holds the
// token, so a port outside 1-65535 (which a cast would wrap to some other port) is refused.
#pragma once
#include <cstdint>
#include <string>

#include "core/http/http_client.h"
#include "core/json/json.h"
#include "core/store/object_store.h"

namespace k32 {
namespace podserver {

// The pod server's port; false when the Node names none or one outside 1-65535.
bool pod_server_port(const json::Value& node, uint16_t* port);
// The pod server's address and port; false when either is missing or invalid.
bool pod_server_address(const json::Value& node, http::Endpoint* ep);
// The same for the Node named `node` in the store; false also when there is no such Node.
bool pod_server_address(store::ObjectStore* st, const std::string& node, http::Endpoint* ep);

}  // namespace podserver
}  // namespace k32
