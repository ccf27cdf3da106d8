// The metrics.k8s.io/v1beta1 API (NodeMetrics, PodMetrics) that kubectl top reads, served by
// the control plane from the usage reports its nodes send after each heartbeat
// (kubelet/usage_report.h), kept by MetricsStore (metrics_store.h).
#pragma once
#include "core/api/api_server.h"
#include "core/api/metrics_store.h"
#include "core/store/object_store.h"

namespace k32 {
namespace api {

constexpr const char* kMetricsGroup = "metrics.k8s.io";
constexpr const char* kMetricsVersion = "v1beta1";

// The routes: POST /apis/kube32.io/v1/nodes/<node>/usage (a node's report) and GET under
// /apis/metrics.k8s.io (discovery, nodes, pods). Also lists the group in /apis.
void mount_metrics_api(ApiServer* api, store::ObjectStore* st, MetricsStore* metrics);

}  // namespace api
}  // namespace k32
