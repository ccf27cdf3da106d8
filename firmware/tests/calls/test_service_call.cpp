// Service calls over real loopback sockets: resolution from the store, in-process calls
// with the stack check, the keep-alive pool with X-Kube32-Pod / X-Kube32-Call-Chain,
// header filtering, loops and NetworkPolicy.
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

#include "check.h"
#include "test_fixture.h"
#include "test_ports.h"
#include "core/calls/call_client.h"
#include "core/calls/egress_gateway.h"
#include "core/calls/service_call.h"
#include "core/http/http_server.h"
#include "core/store/object_store.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"

using namespace k32;

static json::Value J(const std::string& text) { return k32test::parse_json(text); }

static json::Value pod(const std::string& name, const std::string& node, bool ready, const std::string& app = "web") {
  return J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","labels":{"app":")" +
           app + R"("}},"spec":{"nodeName":")" + node +
           R"(","containers":[{"name":"c","ports":[{"name":"http","containerPort":7000}]}]},
           "status":{"phase":"Running","podIP":"127.0.0.1","conditions":[{"type":"Ready","status":")" +
           (ready ? "True" : "False") + R"("}]}})");
}

int main() {
  store::ObjectStore st;
  std::string err;
  CHECK(st.open("", &err));

  // A pod server on loopback that records what it receives.
  std::atomic<int> requests{0};
  std::string last_pod, last_chain, last_headers;
  std::mutex mu;
  // A server runs until the process exits (its threads are detached and hold it): never
  // destroyed, so it must not live on main's stack, whose end races those threads.
  http::Server& srv = *new http::Server;
  http::ServerConfig cfg;
  cfg.bind_ip = "127.0.0.1";
  bool started = k32test::start_on_free_port(
      srv, &cfg,
      [&](http::Request& rq, http::ResponseWriter& w) {
        std::lock_guard<std::mutex> lk(mu);
        ++requests;
        last_pod = rq.header(calls::kPodHeader) ? *rq.header(calls::kPodHeader) : "";
        last_chain = rq.header(calls::kChainHeader) ? *rq.header(calls::kChainHeader) : "";
        last_headers.clear();
        for (const auto& h : rq.headers) last_headers += h.name + ";";
        w.send(200, "text/plain", "remote:" + rq.path + ":" + rq.body);
      },
      &err);
  CHECK(started);
  const uint16_t pod_port = srv.port();
  CHECK(pod_port != 0);

  std::string svc = R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},
      "spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":"http"}]}})";
  // Pods are reached at their node's pod server port (daemonEndpoints), not the target port.
  CHECK(st.create("nodes", "", "worker-1",
                  J(R"({"metadata":{"name":"worker-1"},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":)" +
                    std::to_string(pod_port) + "}}}}"),
                  nullptr) == store::Result::Ok);
  CHECK(st.create("services", "default", "web", J(svc), nullptr) == store::Result::Ok);
  CHECK(st.create(
            "services", "default", "empty",
            J(R"({"metadata":{"name":"empty","namespace":"default"},"spec":{"selector":{"app":"none"},"ports":[{"port":80}]}})"),
            nullptr) == store::Result::Ok);
  CHECK(st.create("pods", "default", "remote-0", pod("remote-0", "worker-1", true), nullptr) == store::Result::Ok);
  CHECK(st.create("pods", "default", "unready", pod("unready", "worker-1", false), nullptr) == store::Result::Ok);

  calls::ServiceCallerEnv senv;
  senv.node_name = "cp";
  senv.resolve = calls::store_service_resolver(&st);
  senv.inproc_stack_bytes = 1024;
  std::string local_seen;
  uint64_t local_deadline = 0;
  senv.local = [&](const std::string& key, const http::Request& rq, calls::LocalResponse* out, uint64_t deadline_ms) -> int32_t {
    local_seen = key + "|" + (rq.header(calls::kChainHeader) ? *rq.header(calls::kChainHeader) : "");
    local_deadline = deadline_ms;
    out->status = 202;
    out->body = "local:" + rq.path;
    return 0;
  };
  senv.head_max = K32_RESP_HEAD_MAX_CP;
  calls::ServiceCaller caller(senv);
  calls::CallEnv env;
  env.control_plane = true;
  env.head_max = K32_RESP_HEAD_MAX_CP;
  env.policy = [&](const calls::CallArgs& a, const netpol::Destination& d, const std::string& target) {
    json::Value p;
    if (!st.get("pods", a.caller_ns, a.caller_name, &p)) {
      p = json::Value::object();
      p.at_or_insert("metadata").set("namespace", a.caller_ns);
    }
    return calls::store_policy_check(&st, p, d, target);
  };
  calls::CallClient* client_ptr = nullptr;
  env.service = [&](const calls::ServiceCall& sc, calls::CallReply* rep, bool* exists) {
    return caller.call(*client_ptr, sc, rep, exists);
  };
  calls::CallClient client(env);
  client_ptr = &client;

  uint8_t buf[256];
  auto call = [&](const std::string& url, const std::string& headers = "", const std::string& chain = "",
                  size_t cap = sizeof buf) {
    calls::CallArgs a;
    a.caller_ns = "default";
    a.caller_name = "caller";
    a.method = "POST";
    a.url = url;
    a.headers = headers;
    a.body = reinterpret_cast<const uint8_t*>("B");
    a.body_len = 1;
    a.resp = buf;
    a.resp_cap = cap;
    a.call_chain = chain;
    return client.call(a);
  };
  auto body = [&](const calls::CallReply& r) { return std::string(reinterpret_cast<char*>(buf), r.resp_len); };

  // Remote pod over the pool, every name form of the table.
  for (const char* u :
       {"http://web/x", "http://web.default/x", "http://web.default.svc/x", "http://web.default.svc.cluster.local:80/x"}) {
    calls::CallReply r = call(u, "Content-Type: text/plain\r\nX-Secret: no\r\nCookie: c=1\r\nX-Request-Id: 7\r\n");
    CHECK_EQ(r.rc, 200);
    CHECK_EQ(body(r), "remote:/x:B");
  }
  CHECK_EQ(last_pod, "default/remote-0");
  CHECK_EQ(last_chain, "default/caller");
  CHECK(last_headers.find("X-Secret") == std::string::npos);
  CHECK(last_headers.find("Cookie") != std::string::npos);
  CHECK(last_headers.find("X-Request-Id") != std::string::npos);

  // Not found: Service, port, or no ready pod.
  CHECK_EQ(call("http://nope/").rc, K32_ERR_NOENT);
  CHECK_EQ(call("http://web:81/").rc, K32_ERR_NOENT);
  CHECK_EQ(call("http://empty/").rc, K32_ERR_NOENT);
  CHECK_EQ(call("http://nope.default.svc/").rc, K32_ERR_NOENT);

  // Loops: the target already in the chain, or a chain of K32_CALL_CHAIN_MAX.
  CHECK_EQ(call("http://web/", "", "default/remote-0").rc, K32_ERR_LOOP);
  std::string long_chain;
  for (uint32_t i = 0; i + 1 < K32_CALL_CHAIN_MAX; ++i)
    long_chain += (i ? "," : "") + std::string("default/p") + std::to_string(i);
  CHECK_EQ(call("http://web/", "", long_chain).rc, K32_ERR_LOOP);
  long_chain = long_chain.substr(0, long_chain.rfind(','));
  CHECK_EQ(call("http://web/", "", long_chain).rc, 200);
  // A backend already in the chain (a pod calling a Service it backs) is passed over for
  // another backend, on every turn of the rotation; LOOP only when none is left.
  CHECK(st.create("pods", "default", "remote-1", pod("remote-1", "worker-1", true), nullptr) == store::Result::Ok);
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ(call("http://web/", "", "default/remote-0").rc, 200);
    CHECK_EQ(last_pod, "default/remote-1");
  }
  CHECK_EQ(call("http://web/", "", "default/remote-0,default/remote-1").rc, K32_ERR_LOOP);
  CHECK(st.remove("pods", "default", "remote-1", 0, nullptr) == store::Result::Ok);

  // TOOBIG over the pool keeps the status and the first bytes.
  {
    calls::CallReply r = call("http://web/abcdef", "", "", 4);
    CHECK_EQ(r.rc, K32_ERR_TOOBIG);
    CHECK_EQ(r.status, 200);
    CHECK_EQ(body(r), "remo");
  }

  // NetworkPolicy: a deny-all for the caller -> PERM.
  CHECK(st.create("pods", "default", "caller", pod("caller", "cp", true, "client"), nullptr) == store::Result::Ok);
  CHECK(
      st.create(
          "networking.k8s.io/networkpolicies", "default", "deny",
          J(R"({"metadata":{"name":"deny","namespace":"default"},"spec":{"podSelector":{"matchLabels":{"app":"client"}},"policyTypes":["Egress"],"egress":[{"to":[{"podSelector":{"matchLabels":{"app":"db"}}}]}]}})"),
          nullptr) == store::Result::Ok);
  CHECK_EQ(call("http://web/").rc, K32_ERR_PERM);
  CHECK(st.remove("networking.k8s.io/networkpolicies", "default", "deny", 0, nullptr) == store::Result::Ok);
  CHECK_EQ(call("http://web/").rc, 200);  // a change applies from the next call

  // Same node: in-process on the caller's thread, with the chain; NOMEM without stack.
  CHECK(st.remove("pods", "default", "remote-0", 0, nullptr) == store::Result::Ok);
  CHECK(st.create("pods", "default", "local-0", pod("local-0", "cp", true), nullptr) == store::Result::Ok);
  {
    calls::CallReply r = call("http://web/in");
    CHECK_EQ(r.rc, 202);
    CHECK_EQ(body(r), "local:/in");
    CHECK_EQ(local_seen, "default/local-0|default/caller");
    // The in-process handler gets the call's deadline (timeout_ms 0: the 5 s default).
    uint64_t now = port::monotonic_ms();
    CHECK(local_deadline > now && local_deadline <= now + K32_CALL_TIMEOUT_DEFAULT_MS);
  }
  calls::ServiceCallerEnv tight = senv;
  tight.inproc_stack_bytes = 0xFFFFFFFFu;
  calls::ServiceCaller starved(tight);
  env.service = [&](const calls::ServiceCall& sc, calls::CallReply* rep, bool* exists) {
    return starved.call(*client_ptr, sc, rep, exists);
  };
  calls::CallClient client2(env);
  client_ptr = &client2;
  {
    calls::CallArgs a;
    a.caller_ns = "default";
    a.caller_name = "caller";
    a.method = "GET";
    a.url = "http://web/";
    a.resp = buf;
    a.resp_cap = sizeof buf;
    CHECK_EQ(client2.call(a).rc, K32_ERR_NOMEM);
  }

  // Pool reuse: several remote calls, few connections (the recorded count is per request).
  CHECK(requests.load() >= 6);
  TEST_MAIN_END();
}
