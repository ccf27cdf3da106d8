// Wiring of k32_http_call into a node: the kubelet's http_call hook (guest memory in and
// out, k32_http_status, the pod's stop flag, the call chain of the request being
// handled), and the per-role environments — control plane (store, TLS sessions, egress
// gateway) and worker (API resolver with cache, NetworkPolicy cache, gateway client).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/api/api_server.h"
#include "core/calls/call_client.h"
#include "core/calls/egress_client.h"
#include "core/calls/egress_gateway.h"
#include "core/calls/service_call.h"
#include "core/kubelet/kubelet.h"
#include "core/netpol/policy_cache.h"

namespace k32 {
namespace calls {

struct NodeCalls {
  std::unique_ptr<ServiceCaller> services;
  std::unique_ptr<ApiServiceResolver> api_resolver;   // workers
  std::unique_ptr<netpol::PolicyCache> policy_cache;  // workers: the kubelet feeds it
  std::unique_ptr<EgressGateway> gateway;             // control plane
  std::unique_ptr<CallClient> client;
};

// Control plane: services and policies from the store, https:// on the TLS sessions, the
// egress gateway mounted on `api`. Installs the kubelet hook. `token` is the cluster's
// bearer token now, which other nodes' pod servers require.
std::unique_ptr<NodeCalls> install_control_plane_calls(kubelet::Kubelet* kubelet, store::ObjectStore* st, api::ApiServer* api,
                                                       std::function<std::string()> token);

// Worker: services through the API (3 s cache), policies through a PolicyCache that the
// kubelet feeds (labels at every pod sync, a namespace's policies before its first pod
// starts, relists when due), https:// through the gateway at the API server's address.
std::unique_ptr<NodeCalls> install_worker_calls(kubelet::Kubelet* kubelet, std::function<std::string()> token);

// The kubelet hook alone (exposed for tests): reads the 12 k32_http_call arguments.
void install_http_call_hook(kubelet::Kubelet* kubelet, CallClient* client);

}  // namespace calls
}  // namespace k32
