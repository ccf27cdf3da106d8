// k32-call: drives the calls library outside a node, for tests and `k32 bench calls`.
//   k32-call call [options] URL        one or more k32_http_call's as a pod would make them;
//                                      prints one JSON line per call {"rc","status","len","body","ms"}
//   k32-call gateway --port P [...]    an API server with only the egress gateway mounted
// Options: -X METHOD, -H "Name: value" (repeatable), -d BODY, --cap N, --timeout MS,
//   --pod NS/NAME, --objects FILE (JSON list of Pods/Nodes/Namespaces/NetworkPolicies for
//   the store), --ca PEM (extra trusted roots), --worker (worker limits; https:// through
//   --gateway IP:PORT with --token T), --parallel N, --repeat N, --token T (gateway).
#include <atomic>
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
  static calls::EgressGateway gw(env);
  api.add_route(gw.route());
  http::ServerConfig cfg;
  cfg.name = "gateway";
  cfg.bind_ip = "127.0.0.1";
  cfg.port = o.port;
  static http::Server srv;
  std::string err;
  if (!srv.start(cfg, [](http::Request& rq, http::ResponseWriter& w) { api.handle(rq, w); }, &err)) {
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
                                uint64_t deadline, calls::CallReply* rep) {
      return calls::call_via_gateway(gt, a, u, hs, deadline, head_max, rep);
    };
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
  if (o.mode != "call") usage("mode must be call or gateway");
  if (o.url.empty()) usage("missing URL");
  return run_calls(o);
}
