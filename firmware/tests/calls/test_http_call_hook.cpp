// The kubelet's k32_http_call hook over a real Wasm memory: arguments read from linear
// memory, resp and *resp_len written back, k32_http_status() set, K32_ERR_FAULT for any
// pointer/length out of bounds. The call goes to a loopback server.
#include <cstring>
#include <string>

#include "check.h"
#include "test_ports.h"
#include "core/calls/node_calls.h"
#include "core/http/http_server.h"
#include "core/kubelet/pod_runtime.h"
#include "runtime/k32_app_abi.h"
#include "wasm/wasm.h"

using namespace k32;

int main() {
  // A module with one 64 KiB memory and nothing else.
  static const uint8_t kModule[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01};
  wasm::Error werr;
  wasm::Module* mod = wasm::module_load(kModule, sizeof kModule, wasm::default_allocator(), &werr);
  CHECK(mod != nullptr);
  wasm::Store* store = wasm::store_new(wasm::default_allocator(), wasm::Limits{});
  wasm::Trap trap;
  wasm::Instance* inst = wasm::instantiate(store, mod, &werr, &trap);
  CHECK(inst != nullptr);
  wasm::Caller caller{store, inst};
  uint32_t mem_size = 0;
  CHECK(caller.memory(&mem_size) != nullptr && mem_size == 65536);

  // A server runs until the process exits (its threads are detached and hold it): never
  // destroyed, so it must not live on main's stack, whose end races those threads.
  http::Server& srv = *new http::Server;
  http::ServerConfig cfg;
  cfg.bind_ip = "127.0.0.1";
  std::string err;
  bool started = k32test::start_on_free_port(
      srv, &cfg, [](http::Request& rq, http::ResponseWriter& w) { w.send(203, "text/plain", "0123456789"); }, &err);
  CHECK(started);

  kubelet::KubeletConfig kc;
  kc.node_name = "n";
  kubelet::Kubelet kl(kc, nullptr);
  calls::CallEnv env;
  calls::CallClient client(env);
  calls::install_http_call_hook(&kl, &client);
  CHECK(static_cast<bool>(kl.hooks().http_call));

  kubelet::Pod pod;
  pod.kubelet = &kl;
  pod.ns = "default";
  pod.name = "p";
  kubelet::Container ctr;
  ctr.pod = &pod;

  const std::string method = "GET";
  const std::string url = "http://127.0.0.1:" + std::to_string(cfg.port) + "/";
  CHECK(caller.write(0, method.data(), static_cast<uint32_t>(method.size())));
  CHECK(caller.write(16, url.data(), static_cast<uint32_t>(url.size())));
  auto call = [&](uint32_t url_ptr, uint32_t url_len, uint32_t resp_ptr, uint32_t resp_cap, uint32_t len_ptr) {
    wasm::Value a[12];
    uint32_t v[12] = {0, 3, url_ptr, url_len, 0, 0, 0, 0, resp_ptr, resp_cap, len_ptr, 2000};
    for (int i = 0; i < 12; ++i) a[i].bits = v[i];
    return kl.hooks().http_call(ctr, caller, a);
  };

  CHECK_EQ(call(16, static_cast<uint32_t>(url.size()), 1024, 64, 2048), 203);
  CHECK_EQ(ctr.last_http_status, 203);
  char got[11] = {0};
  CHECK(caller.read(1024, got, 10));
  CHECK_EQ(std::string(got), "0123456789");
  uint8_t le[4];
  CHECK(caller.read(2048, le, 4));
  CHECK_EQ(le[0] | (le[1] << 8) | (le[2] << 16) | (uint32_t(le[3]) << 24), 10u);

  // TOOBIG: 4 bytes copied, status kept for k32_http_status().
  ctr.last_http_status = 0;
  CHECK_EQ(call(16, static_cast<uint32_t>(url.size()), 3000, 4, 2048), K32_ERR_TOOBIG);
  CHECK_EQ(ctr.last_http_status, 203);
  CHECK(caller.read(2048, le, 4));
  CHECK_EQ(le[0], 4);

  // Out of bounds: the URL, the response buffer, the length word. A fault leaves no status
  // behind: k32_http_status() is 0, not the previous call's 203.
  CHECK_EQ(ctr.last_http_status, 203);
  CHECK_EQ(call(65530, 100, 1024, 64, 2048), K32_ERR_FAULT);
  CHECK_EQ(ctr.last_http_status, 0);
  CHECK_EQ(call(16, static_cast<uint32_t>(url.size()), 65500, 100, 2048), K32_ERR_FAULT);
  CHECK_EQ(call(16, static_cast<uint32_t>(url.size()), 1024, 64, 65534), K32_ERR_FAULT);
  CHECK_EQ(call(0xFFFFFFF0u, 32, 1024, 64, 2048), K32_ERR_FAULT);

  wasm::store_free(store);
  wasm::module_free(mod);
  TEST_MAIN_END();
}
