// GET /api/v1/namespaces/<ns>/pods/<name>/log on the control plane: served from the local
// kubelet for its own pods, proxied to the worker's pod server (/kube32/logs) otherwise.
#pragma once
#include "core/api/api_server.h"
#include <functional>
#include <string>

#include "core/kubelet/kubelet.h"

namespace k32 {
namespace podserver {

// token: the cluster's bearer token now; the worker's pod server requires it (peer_auth.h).
api::ExtraRoute make_log_route(store::ObjectStore* st, kubelet::Kubelet* local, std::function<std::string()> token);

}  // namespace podserver
}  // namespace k32
