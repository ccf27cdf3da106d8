// Calls to Services: resolution to ready backing pods (from the
// store on the control plane, from the API with a 3 s cache on workers), NetworkPolicy
// per candidate pod, call-chain loop checks, then the pod in-process on the caller's
// thread (same node, with the native stack check) or over a keep-alive pool to the
// target node's pod server with X-Kube32-Pod and X-Kube32-Call-Chain.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/calls/call_client.h"
#include "core/http/keepalive_pool.h"
#include "core/store/object_store.h"
#include "port.h"

namespace k32 {
namespace calls {

constexpr const char* kPodHeader = "X-Kube32-Pod";
constexpr const char* kChainHeader = "X-Kube32-Call-Chain";

struct Backend {
  std::string key;         // "ns/name"
  std::string ip;          // status.podIP (the node's address)
  std::string node;        // spec.nodeName
  uint16_t port = 0;       // resolved target port (what NetworkPolicy compares)
  uint16_t node_port = 0;  // the target node's pod server (status.daemonEndpoints.kubeletEndpoint.Port)
  json::Value pod;         // the pod object when the resolver has it (control plane)
};

// Resolves (ns, service, port 0 = first) by deadline_ms (port::monotonic_ms time; the
// call's deadline): sets *exists; fills the ready backends. Returns 0, or K32_ERR_NOENT (no
// such Service or port), K32_ERR_IO (API unreachable), K32_ERR_TIMEOUT (deadline passed).
using ServiceResolver = std::function<int32_t(const std::string& ns, const std::string& svc, uint16_t port, uint64_t deadline_ms,
                                              bool* exists, std::vector<Backend>* out)>;

// Control plane: reads the store on every call, so a change applies from the next call.
ServiceResolver store_service_resolver(store::ObjectStore* st);

// Worker: GETs the Service and its Endpoints through `get` (HTTP status or a negative
// transport error, body; within timeout_ms) and keeps each answer for cache_ms. The GETs
// share the call's deadline, so a control plane that does not answer costs the call its
// timeout_ms, not the API client's own.
class ApiServiceResolver {
 public:
  using Get = std::function<int(const std::string& path, json::Value* out, uint32_t timeout_ms)>;
  ApiServiceResolver(Get get, uint32_t cache_ms) : get_(std::move(get)), cache_ms_(cache_ms) {}
  int32_t resolve(const std::string& ns, const std::string& svc, uint16_t port, uint64_t deadline_ms, bool* exists,
                  std::vector<Backend>* out);

 private:
  struct Entry {
    uint64_t at = 0;
    int32_t rc = 0;
    bool exists = false;
    json::Value service, endpoints;
  };
  Get get_;
  uint32_t cache_ms_;
  uint16_t node_port(const std::string& node, uint64_t now, uint64_t deadline_ms);
  // get_ bounded by deadline_ms (0: none); K32_ERR_TIMEOUT (as a status) once it has passed.
  int get_by(const std::string& path, json::Value* out, uint64_t deadline_ms);
  port::Mutex mu_;
  std::map<std::string, Entry> cache_;
  std::map<std::string, std::pair<uint64_t, uint16_t>> node_ports_;  // node -> (read at, port)
};

// The pod server port a Node object reports; K32_POD_PORT when it reports none.
uint16_t pod_server_port(const json::Value& node);

// "a/b,c/d" -> {"a/b","c/d"}
std::vector<std::string> parse_chain(const std::string& chain);

// What an in-process call returns (the kubelet's PodResponse, without the kubelet).
struct LocalResponse {
  int status = 200;
  std::string body;
};

struct ServiceCallerEnv {
  std::string node_name;
  ServiceResolver resolve;
  uint32_t inproc_stack_bytes = 0;  // free native stack an in-process call needs
  // Same node: delivers the request to the pod's k32_handle on this thread.
  // deadline_ms (port::monotonic_ms time) bounds the handler: K32_ERR_TIMEOUT past it.
  std::function<int32_t(const std::string& pod_key, const http::Request& rq, LocalResponse* out, uint64_t deadline_ms)> local;
  size_t head_max = 1024;
  // The cluster's bearer token now ("" = none): the target node's pod server requires it
  // in X-Kube32-Token (core/podserver/peer_auth.h).
  std::function<std::string()> token;
};

class ServiceCaller {
 public:
  explicit ServiceCaller(ServiceCallerEnv env) : env_(std::move(env)) {}
  // Plugs into CallEnv::service; `client` supplies NetworkPolicy and the [NETPOL] log.
  int32_t call(CallClient& client, const ServiceCall& sc, CallReply* rep, bool* exists);

 private:
  int32_t call_remote(const Backend& b, const ServiceCall& sc, const std::string& chain, CallReply* rep);
  ServiceCallerEnv env_;
  port::Mutex mu_;
  http::KeepAlivePool idle_;
  uint32_t next_ = 0;  // round-robin start among allowed backends
};

}  // namespace calls
}  // namespace k32
