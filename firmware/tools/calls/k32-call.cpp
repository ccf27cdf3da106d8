// k32-call: drives the calls library outside a node, for tests and `k32 bench calls`.
//   k32-call call [options] URL        one or more k32_http_call's as a pod would make them;
//                                      prints one JSON line per call {"rc","status","len","body","ms"}
//   k32-call gateway --port P [...]    an API server with only the egress gateway mounted
//   k32-call bench --repeat N [URL]    Service-call latency in-process and over the node
//                                      pool (a native handler stands in for the pod), and
//                                      the TLS handshake+request time to URL; one JSON object
// Options: -X METHOD, -H "Name: value" (repeatable), -d BODY, --cap N, --timeout MS,
//   --pod NS/NAME, --objects FILE (JSON list of Pods/Nodes/Namespaces/NetworkPolicies for
//   the store), --ca PEM (extra trusted roots), --worker (worker limits; https:// through
//   --gateway IP:PORT with --token T), --parallel N, --repeat N, --token T (gateway).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/api/api_server.h"
#include "core/calls/call_client.h"
#include "core/calls/egress_client.h"
#include "core/calls/egress_gateway.h"
#include "core/calls/service_call.h"
#include "core/http/http_server.h"
#include "core/store/object_store.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;

namespace {

struct Opts {
  std::string mode, url, method = "GET", data, pod = "default/k32-call", objects, ca, gateway, token;
  std::string headers;
  uint32_t cap = 4096, timeout = 0, parallel = 1, repeat = 1;
  uint16_t port = 0;
  bool worker = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "k32-call: %s\nusage: k32-call call [options] URL | k32-call gateway --port P [options]\n", why);
  std::exit(2);
}

uint32_t num(const char* flag, const char* v) {
  char* end = nullptr;
  unsigned long n = std::strtoul(v, &end, 10);
  if (!*v || *end || n > 0xffffffffUL) usage((std::string(flag) + " needs an unsigned number").c_str());
  return static_cast<uint32_t>(n);
}

const char* resource_of(const std::string& kind) {
  if (kind == "Pod") return "pods";
  if (kind == "Node") return "nodes";
  if (kind == "Namespace") return "namespaces";
  if (kind == "NetworkPolicy") return "networking.k8s.io/networkpolicies";
  if (kind == "Service") return "services";
  return nullptr;
}

bool load_objects(store::ObjectStore* st, const std::string& path) {
  std::string err;
  if (!st->open("", &err)) return false;
  if (path.empty()) return true;
  char* data = nullptr;
  size_t len = 0;
  if (!port::file_read(path.c_str(), &data, &len)) {
    std::fprintf(stderr, "k32-call: %s: cannot read\n", path.c_str());
    return false;
  }
  json::Value v;
  json::ParseError pe;
  bool ok = json::parse(data, len, &v, &pe);
  port::mem_free(data);
  if (!ok || !v.is_array()) {
    std::fprintf(stderr, "k32-call: %s: must be a JSON list of objects\n", path.c_str());
    return false;
  }
  size_t i = 0;
  for (const auto& o : v.items()) {
    const char* res = resource_of(o["kind"].as_string());
    if (!res) {
      std::fprintf(stderr, "k32-call: %s: item %zu: unsupported kind\n", path.c_str(), i);
      return false;
    }
    st->create(res, o["metadata"]["namespace"].as_string(), o["metadata"]["name"].as_string(), o, nullptr);
    ++i;
  }
  return true;
}

std::string json_str(const std::string& s) { return json::dump(json::Value(s)); }

int run_gateway(const Opts& o) {
  static store::ObjectStore st;
  if (!load_objects(&st, o.objects)) return 1;
  static api::ApiServer api(&st, api::ApiConfig{});
  api.set_token(o.token);
  calls::EgressGatewayEnv env;
  env.store = &st;
  env.sessions = &calls::node_tls_sessions();
  env.head_max = K32_RESP_HEAD_MAX_CP;
  env.has_token = [] { return api.has_token(); };
  env.authorized = [](const http::Request& r) { return api.authorized(r); };
  static calls::EgressGateway gw(env);
  api.add_route(gw.route(), /*checks_own_auth=*/true);
  http::ServerConfig cfg;
  cfg.name = "gateway";
  cfg.bind_ip = "127.0.0.1";
  cfg.port = o.port;
  static http::Server srv;
  std::string err;
  if (!srv.start(
          cfg, [](http::Request& rq, http::ResponseWriter& w) { api.handle(rq, w); }, &err)) {
    std::fprintf(stderr, "k32-call: gateway: %s\n", err.c_str());
    return 1;
  }
  std::printf("ready %u\n", static_cast<unsigned>(srv.port()));
  std::fflush(stdout);
  for (;;) port::sleep_ms(1000);
}

int run_calls(const Opts& o) {
  static store::ObjectStore st;
  if (!load_objects(&st, o.objects)) return 1;
  size_t slash = o.pod.find('/');
  if (slash == std::string::npos) usage("--pod must be NS/NAME");
  calls::CallEnv env;
  env.control_plane = !o.worker;
  env.head_max = o.worker ? K32_RESP_HEAD_MAX_WORKER : K32_RESP_HEAD_MAX_CP;
  env.sessions = o.worker ? nullptr : &calls::node_tls_sessions();
  env.policy = [](const calls::CallArgs& a, const netpol::Destination& d, const std::string& target) {
    json::Value pod;
    if (!st.get("pods", a.caller_ns, a.caller_name, &pod)) {
      pod = json::Value::object();
      pod.at_or_insert("metadata").set("namespace", a.caller_ns);
      pod.at_or_insert("metadata").set("name", a.caller_name);
    }
    return calls::store_policy_check(&st, pod, d, target);
  };
  if (o.worker && !o.gateway.empty()) {
    calls::GatewayTarget gt;
    size_t c = o.gateway.rfind(':');
    if (c == std::string::npos) usage("--gateway must be IP:PORT");
    gt.ip = o.gateway.substr(0, c);
    gt.port = static_cast<uint16_t>(num("--gateway", o.gateway.c_str() + c + 1));
    gt.token = o.token;
    size_t head_max = env.head_max;
    env.egress = [gt, head_max](const calls::CallArgs& a, const calls::CallUrl& u, const std::vector<http::Header>& hs,
                                uint64_t deadline,
                                calls::CallReply* rep) { return calls::call_via_gateway(gt, a, u, hs, deadline, head_max, rep); };
  }
  static calls::CallClient* client = new calls::CallClient(env);
  std::mutex out_mu;
  auto worker = [&]() {
    std::vector<uint8_t> buf(o.cap ? o.cap : 1);
    for (uint32_t i = 0; i < o.repeat; ++i) {
      calls::CallArgs a;
      a.caller_ns = o.pod.substr(0, slash);
      a.caller_name = o.pod.substr(slash + 1);
      a.method = o.method;
      a.url = o.url;
      a.headers = o.headers;
      a.body = reinterpret_cast<const uint8_t*>(o.data.data());
      a.body_len = o.data.size();
      a.resp = buf.data();
      a.resp_cap = o.cap;
      a.timeout_ms = o.timeout;
      uint64_t t0 = port::monotonic_ms();
      calls::CallReply r = client->call(a);
      uint64_t ms = port::monotonic_ms() - t0;
      std::string body(reinterpret_cast<const char*>(buf.data()), r.resp_len);
      std::lock_guard<std::mutex> lk(out_mu);
      std::printf("{\"rc\":%d,\"status\":%d,\"len\":%u,\"ms\":%llu,\"body\":%s}\n", static_cast<int>(r.rc), r.status,
                  static_cast<unsigned>(r.resp_len), static_cast<unsigned long long>(ms), json_str(body).c_str());
      std::fflush(stdout);
    }
  };
  std::vector<std::thread> ts;
  for (uint32_t i = 0; i < o.parallel; ++i) ts.emplace_back(worker);
  for (auto& t : ts) t.join();
  return 0;
}

struct Stats {
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, per_s = 0;
  uint32_t n = 0, failed = 0;
};

Stats time_calls(uint32_t n, const std::function<int32_t()>& one) {
  std::vector<double> us;
  Stats s;
  auto t_all = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    int32_t rc = one();
    auto t1 = std::chrono::steady_clock::now();
    if (rc < 100) ++s.failed;
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  double total_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t_all).count();
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (double u : us) sum += u;
  s.n = n;
  if (n) {
    s.mean_ms = sum / n / 1000.0;
    s.p50_ms = us[n / 2] / 1000.0;
    s.p99_ms = us[std::min<size_t>(n - 1, (n * 99) / 100)] / 1000.0;
    s.per_s = total_us > 0 ? n * 1e6 / total_us : 0;
  }
  return s;
}

std::string stats_json(const Stats& s) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "{\"n\":%u,\"failed\":%u,\"mean_ms\":%.4f,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"calls_per_s\":%.1f}",
                s.n, s.failed, s.mean_ms, s.p50_ms, s.p99_ms, s.per_s);
  return buf;
}

int run_bench(const Opts& o) {
  static store::ObjectStore st;
  std::string err;
  if (!st.open("", &err)) return 1;
  static http::Server srv;
  http::ServerConfig cfg;
  cfg.bind_ip = "127.0.0.1";
  bool started = false;
  for (int i = 0; i < 20 && !started; ++i) {
    uint16_t r;
    port::random_fill(&r, sizeof r);
    cfg.port = static_cast<uint16_t>(20000 + r % 40000);
    started = srv.start(
        cfg, [](http::Request& rq, http::ResponseWriter& w) { w.send(200, "text/plain", "pong"); }, &err);
  }
  if (!started) {
    std::fprintf(stderr, "k32-call: bench: %s\n", err.c_str());
    return 1;
  }
  auto mk = [&](const std::string& name, const std::string& node) {
    json::Value p;
    json::ParseError pe;
    json::parse(R"({"metadata":{"name":")" + name + R"(","namespace":"default","labels":{"app":")" + name +
                    R"("}},"spec":{"nodeName":")" + node +
                    R"("},"status":{"phase":"Running","podIP":"127.0.0.1","conditions":[{"type":"Ready","status":"True"}]}})",
                &p, &pe);
    st.create("pods", "default", name, p, nullptr);
    json::Value s;
    json::parse(R"({"metadata":{"name":")" + name + R"(","namespace":"default"},"spec":{"selector":{"app":")" + name +
                    R"("},"ports":[{"port":80,"targetPort":)" + std::to_string(cfg.port) + "}]}}",
                &s, &pe);
    st.create("services", "default", name, s, nullptr);
  };
  {
    json::Value node;
    json::ParseError pe;
    json::parse(R"({"metadata":{"name":"worker-1"},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":)" +
                    std::to_string(cfg.port) + "}}}}",
                &node, &pe);
    st.create("nodes", "", "worker-1", node, nullptr);
  }
  mk("local", "cp");
  mk("remote", "worker-1");
  calls::ServiceCallerEnv se;
  se.node_name = "cp";
  se.resolve = calls::store_service_resolver(&st);
  se.inproc_stack_bytes = 0;  // the bench thread's stack is not the pod runner's
  se.head_max = K32_RESP_HEAD_MAX_CP;
  se.local = [](const std::string&, const http::Request&, calls::LocalResponse* out, uint64_t) -> int32_t {
    out->status = 200;
    out->body = "pong";
    return 0;
  };
  static calls::ServiceCaller sc(se);
  calls::CallEnv env;
  env.head_max = K32_RESP_HEAD_MAX_CP;
  env.sessions = &calls::node_tls_sessions();
  static calls::CallClient* client = nullptr;
  env.policy = [](const calls::CallArgs& a, const netpol::Destination& d, const std::string& t) {
    json::Value pod = json::Value::object();
    pod.at_or_insert("metadata").set("namespace", a.caller_ns);
    return calls::store_policy_check(&st, pod, d, t);
  };
  env.service = [](const calls::ServiceCall& s, calls::CallReply* rep, bool* exists) { return sc.call(*client, s, rep, exists); };
  client = new calls::CallClient(env);
  uint8_t buf[256];
  auto one = [&](const std::string& url) {
    calls::CallArgs a;
    a.caller_ns = "default";
    a.caller_name = "bench";
    a.method = "GET";
    a.url = url;
    a.resp = buf;
    a.resp_cap = sizeof buf;
    return client->call(a).rc;
  };
  uint32_t n = o.repeat > 1 ? o.repeat : 1000;
  Stats local = time_calls(n, [&] { return one("http://local/"); });
  Stats remote = time_calls(n, [&] { return one("http://remote/"); });
  std::string tls = "null";
  if (!o.url.empty()) {
    uint32_t tn = n < 50 ? n : 50;  // handshakes are slow: a few tens tell the time
    tls = stats_json(time_calls(tn, [&] { return one(o.url); }));
  }
  std::printf("{\"in_process\":%s,\"cross_node\":%s,\"tls_handshake_and_request\":%s}\n", stats_json(local).c_str(),
              stats_json(remote).c_str(), tls.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("missing mode");
  Opts o;
  o.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "-X") o.method = val();
    else if (a == "-H") o.headers += std::string(val()) + "\r\n";
    else if (a == "-d") o.data = val();
    else if (a == "--cap") o.cap = num("--cap", val());
    else if (a == "--timeout") o.timeout = num("--timeout", val());
    else if (a == "--pod") o.pod = val();
    else if (a == "--objects") o.objects = val();
    else if (a == "--ca") o.ca = val();
    else if (a == "--worker") o.worker = true;
    else if (a == "--gateway") o.gateway = val();
    else if (a == "--token") o.token = val();
    else if (a == "--parallel") o.parallel = num("--parallel", val());
    else if (a == "--repeat") o.repeat = num("--repeat", val());
    else if (a == "--port") o.port = static_cast<uint16_t>(num("--port", val()));
    else if (!a.empty() && a[0] == '-') usage(("unknown option " + a).c_str());
    else if (o.url.empty()) o.url = a;
    else usage("more than one URL");
  }
  char err[256] = {0};
  if (!port::tls_client_trust(o.ca.empty() ? nullptr : o.ca.c_str(), err, sizeof err)) {
    std::fprintf(stderr, "k32-call: %s\n", err);
    if (!o.ca.empty()) return 1;  // without --ca only https:// calls are affected
  }
  if (o.mode == "gateway") return run_gateway(o);
  if (o.mode == "bench") return run_bench(o);
  if (o.mode != "call") usage("mode must be call or gateway");
  if (o.url.empty()) usage("missing URL");
  return run_calls(o);
}
