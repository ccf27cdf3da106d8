// A node's usage report to the control plane, sent after each heartbeat: the node's heap in
// use per region, its interpreter time, and each running pod's containers (cumulative CPU
// time and linear memory). The control plane's metrics API (metrics_api.h) keeps the last
// two reports per node and serves kubectl top from them, as metrics-server does from its
// kubelet scrapes. One small POST per heartbeat, no extra thread.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace kubelet {

class Kubelet;

// POST <kUsagePathPrefix><node>/usage on the API server.
constexpr const char* kUsagePathPrefix = "/apis/kube32.io/v1/nodes/";

json::Value usage_report(Kubelet* k);

}  // namespace kubelet
}  // namespace k32
