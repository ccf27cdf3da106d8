#include "core/calls/node_calls.h"

#include <vector>

#include "core/kubelet/pod_runtime.h"
#include "core/util/log.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"
#include "wasm/wasm.h"

namespace k32 {
namespace calls {

namespace {

constexpr uint32_t kMaxCallArgBytes = K32_POD_ARG_MAX;  // longest method/url/headers/body a pod passes

bool read_arg(wasm::Caller& c, uint32_t ptr, uint32_t len, std::string* out) {
  if (len > kMaxCallArgBytes) return false;
  out->resize(len);
  return len == 0 || c.read(ptr, &(*out)[0], len);
}

uint32_t u32(const wasm::Value& v) { return static_cast<uint32_t>(v.bits); }

int32_t api_get(kubelet::Kubelet* k, const std::string& path, json::Value* out) {
  return k->api()->call("GET", path, nullptr, out);
}

ServiceCallerEnv service_env(kubelet::Kubelet* k, bool control_plane, std::function<std::string()> token) {
  ServiceCallerEnv e;
  e.token = std::move(token);
  e.node_name = k->config().node_name;
  e.inproc_stack_bytes = K32_INPROC_CALL_STACK_BYTES;
  e.head_max = control_plane ? K32_RESP_HEAD_MAX_CP : K32_RESP_HEAD_MAX_WORKER;
  e.local = [k](const std::string& key, const http::Request& rq, LocalResponse* out, uint64_t deadline_ms) -> int32_t {
    kubelet::PodResponse pr;
    int32_t rc = k->call_pod(key, rq, &pr, deadline_ms);
    if (rc < 0) return rc;
    out->status = pr.status;
    out->body = std::move(pr.body);
    return 0;
  };
  return e;
}

// The worker's NetworkPolicy feed, driven by its kubelet: every sync records the labels
// of the node's pods (a new pod's before it starts) and relists the namespaces that are
// due; a pod starts only once its namespace's policies are loaded.
void feed_policies_from_kubelet(kubelet::Kubelet* kubelet, netpol::PolicyCache* cache) {
  kubelet->hooks().pods_begin = [cache]() { cache->begin_pods(); };
  kubelet->hooks().pod_listed = [cache](const json::Value& pod) { cache->record_pod(pod); };
  kubelet->hooks().pods_end = [cache]() {
    cache->end_pods();
    cache->relist_due(port::monotonic_ms());
  };
  kubelet->hooks().network_ready = [cache](const json::Value& pod, std::string* why) {
    const std::string ns = pod["metadata"]["namespace"].as_string();
    if (cache->ensure_namespace(ns, port::monotonic_ms())) return true;
    *why = "the NetworkPolicies of namespace " + ns + " could not be read from the API server";
    return false;
  };
}

}  // namespace

void install_http_call_hook(kubelet::Kubelet* kubelet, CallClient* client) {
  kubelet->hooks().http_call = [client](kubelet::Container& k, wasm::Caller& c, const wasm::Value* a) -> int32_t {
    // A call that faults before any response leaves no status behind (the ABI's "0 when
    // none arrived"), not the previous call's.
    k.last_http_status = 0;
    CallArgs args;
    std::string body;
    if (!read_arg(c, u32(a[0]), u32(a[1]), &args.method) || !read_arg(c, u32(a[2]), u32(a[3]), &args.url) ||
        !read_arg(c, u32(a[4]), u32(a[5]), &args.headers) || !read_arg(c, u32(a[6]), u32(a[7]), &body))
      return K32_ERR_FAULT;
    const uint32_t resp_ptr = u32(a[8]), resp_cap = u32(a[9]), len_ptr = u32(a[10]);
    uint32_t mem_size = 0;
    c.memory(&mem_size);
    if (uint64_t(resp_ptr) + resp_cap > mem_size || uint64_t(len_ptr) + 4 > mem_size) return K32_ERR_FAULT;
    std::vector<uint8_t> resp(resp_cap);
    args.caller_ns = k.pod->ns;
    args.caller_name = k.pod->name;
    args.body = reinterpret_cast<const uint8_t*>(body.data());
    args.body_len = body.size();
    args.resp = resp.data();
    args.resp_cap = resp_cap;
    args.timeout_ms = u32(a[11]);
    args.cancel = &k.pod->stopping;
    if (k.req) {
      if (const std::string* chain = k.req->header(kChainHeader)) args.call_chain = *chain;
    }
    CallReply rep = client->call(args);
    k.last_http_status = rep.status;
    // The guest ran nothing meanwhile, but an in-process call may have grown another
    // instance only: this memory's bounds still hold; write through the checked API.
    if (rep.resp_len && !c.write(resp_ptr, resp.data(), rep.resp_len)) return K32_ERR_FAULT;
    uint32_t n = rep.resp_len;
    uint8_t le[4] = {uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16), uint8_t(n >> 24)};
    if (!c.write(len_ptr, le, 4)) return K32_ERR_FAULT;
    return rep.rc;
  };
}

std::unique_ptr<NodeCalls> install_control_plane_calls(kubelet::Kubelet* kubelet, store::ObjectStore* st, api::ApiServer* api,
                                                       std::function<std::string()> token) {
  std::unique_ptr<NodeCalls> n(new NodeCalls());
  ServiceCallerEnv se = service_env(kubelet, true, std::move(token));
  se.resolve = store_service_resolver(st);
  n->services.reset(new ServiceCaller(se));
  EgressGatewayEnv ge;
  ge.store = st;
  ge.sessions = &node_tls_sessions();
  ge.head_max = K32_RESP_HEAD_MAX_CP;
  ge.has_token = [api] { return api->has_token(); };
  ge.authorized = [api](const http::Request& r) { return api->authorized(r); };
  n->gateway.reset(new EgressGateway(ge));
  api->add_route(n->gateway->route(), /*checks_own_auth=*/true);

  CallEnv env;
  env.control_plane = true;
  env.head_max = K32_RESP_HEAD_MAX_CP;
  env.sessions = &node_tls_sessions();
  env.policy = [st](const CallArgs& a, const netpol::Destination& d, const std::string& target) {
    json::Value pod;
    if (!st->get("pods", a.caller_ns, a.caller_name, &pod)) {
      netpol::Verdict v;
      v.allowed = false;
      v.reason = "calling pod not found in the store";
      return v;
    }
    return store_policy_check(st, pod, d, target);
  };
  NodeCalls* raw = n.get();
  env.service = [raw](const ServiceCall& sc, CallReply* rep, bool* exists) {
    return raw->services->call(*raw->client, sc, rep, exists);
  };
  n->client.reset(new CallClient(env));
  install_http_call_hook(kubelet, n->client.get());
  return n;
}

std::unique_ptr<NodeCalls> install_worker_calls(kubelet::Kubelet* kubelet, std::function<std::string()> token) {
  std::unique_ptr<NodeCalls> n(new NodeCalls());
  n->api_resolver.reset(new ApiServiceResolver(
      [kubelet](const std::string& path, json::Value* out, uint32_t timeout_ms) {
        return kubelet->api()->call("GET", path, nullptr, out, timeout_ms ? timeout_ms : kubelet::ApiClient::kDefaultTimeoutMs);
      },
      K32_SERVICE_CACHE_MS));
  ServiceCallerEnv se = service_env(kubelet, false, token);
  ApiServiceResolver* res = n->api_resolver.get();
  se.resolve = [res](const std::string& ns, const std::string& svc, uint16_t port, uint64_t deadline_ms, bool* exists,
                     std::vector<Backend>* out) { return res->resolve(ns, svc, port, deadline_ms, exists, out); };
  n->services.reset(new ServiceCaller(se));
  n->policy_cache.reset(new netpol::PolicyCache(
      K32_POLICY_RELIST_MS, K32_POLICY_POD_CACHE_MS,
      [kubelet](const std::string& ns, std::vector<json::Value>* out) {
        json::Value list;
        if (api_get(kubelet, "/apis/networking.k8s.io/v1/namespaces/" + ns + "/networkpolicies", &list) != 200) return false;
        for (const auto& item : list["items"].items()) {
          json::Value p = item;
          p.at_or_insert("metadata").set("namespace", ns);
          out->push_back(std::move(p));
        }
        return true;
      },
      [kubelet](const std::string& key, json::Value* out) {
        size_t slash = key.find('/');
        return api_get(kubelet, "/api/v1/namespaces/" + key.substr(0, slash) + "/pods/" + key.substr(slash + 1), out) == 200;
      },
      [kubelet](const std::string& name, json::Value* out) {
        return api_get(kubelet, "/api/v1/namespaces/" + name, out) == 200;
      }));

  CallEnv env;
  env.control_plane = false;
  env.head_max = K32_RESP_HEAD_MAX_WORKER;
  netpol::PolicyCache* pc = n->policy_cache.get();
  env.policy = [pc](const CallArgs& a, const netpol::Destination& d, const std::string& target) {
    return pc->check(a.caller_ns + "/" + a.caller_name, d, target, port::monotonic_ms());
  };
  NodeCalls* raw = n.get();
  env.service = [raw](const ServiceCall& sc, CallReply* rep, bool* exists) {
    return raw->services->call(*raw->client, sc, rep, exists);
  };
  GatewayTarget gt;
  gt.ip = kubelet->api()->endpoint().host;
  gt.port = kubelet->api()->endpoint().port;
  gt.local_ip = kubelet->config().node_ip;
  env.egress = [gt, token](const CallArgs& a, const CallUrl& u, const std::vector<http::Header>& hs, uint64_t deadline,
                           CallReply* rep) {
    GatewayTarget t = gt;
    if (token) t.token = token();
    return call_via_gateway(t, a, u, hs, deadline, K32_RESP_HEAD_MAX_WORKER, rep);
  };
  n->client.reset(new CallClient(env));
  install_http_call_hook(kubelet, n->client.get());
  feed_policies_from_kubelet(kubelet, n->policy_cache.get());
  return n;
}

}  // namespace calls
}  // namespace k32
