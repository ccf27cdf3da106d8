// POST/GET /api/v1/namespaces/<ns>/pods/<name>/portforward: kubectl port-forward's upgrade,
// behind the API's bearer token like every other call. A WebSocket upgrade offering
// "SPDY/3.1+portforward.k8s.io" (kubectl 1.30+) or an "Upgrade: SPDY/3.1" with
// X-Stream-Protocol-Version "portforward.k8s.io" (older kubectl, and the fallback) starts a
// SPDY session; a WebSocket offering "v4.channel.k8s.io" with ?ports= (client libraries)
// starts a channel session (portforward_session.h). Requests reach the pod through its
// node's pod server.
#pragma once
#include <functional>
#include <string>

#include "core/api/api_server.h"
#include "core/store/object_store.h"

namespace k32 {
namespace api {

// token(): the node token the pod servers require.
ExtraRoute make_portforward_route(store::ObjectStore* st, std::function<std::string()> token);

}  // namespace api
}  // namespace k32
