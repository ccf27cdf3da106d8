// Kubelet pieces without a network: image references and digests, the log ring,
// back-off, Service-link env, and the embedded echo/hello/crasher images run through
// the real ABI table (capabilities, memory limits, traps).
#include <atomic>
#include <cstring>
#include <vector>

#include "check.h"
#include "test_fixture.h"
#include "k32_board.h"
#include "core/json/json.h"
#include "core/kubelet/container_runner.h"
#include "core/kubelet/embedded_images.h"
#include "core/kubelet/image_source.h"
#include "core/kubelet/kubelet.h"
#include "core/kubelet/log_ring.h"
#include "core/kubelet/module_cache.h"
#include "core/kubelet/pod_env.h"
#include "core/kubelet/pod_instance.h"
#include "core/util/text.h"
#include "k32_abi_table.h"
#include "port.h"

using namespace k32;
using k32test::parse_json;
using namespace k32::kubelet;

// Every embedded image carries the digest of its bytes (the port's SHA-256 is tested in
// tests/port/test_sha256.cpp).
static void test_embedded_digests() {
  size_t n = 0;
  const EmbeddedImage* imgs = embedded_images(&n);
  CHECK(n >= 3);
  for (size_t i = 0; i < n; ++i) {
    char hex[2 * port::kSha256Bytes + 1];
    port::sha256_hex(imgs[i].data, imgs[i].size, hex);
    CHECK_EQ(std::string(hex), std::string(imgs[i].sha256));
  }
}

static void test_image_refs() {
  ImageRef r;
  std::string err;
  CHECK(parse_image_ref("wasm://embedded/echo", &r, &err) && r.source == "embedded" && r.name == "echo" && r.pin.empty());
  std::string pin(64, 'A');
  CHECK(parse_image_ref("wasm://sd/app@sha256:" + pin, &r, &err) && r.source == "sd" && r.pin == std::string(64, 'a'));
  CHECK(!parse_image_ref("docker.io/nginx", &r, &err) && err.find("wasm://embedded/<name>") != std::string::npos);
  CHECK(!parse_image_ref("wasm://flash/x", &r, &err) && err.find("unknown source") != std::string::npos);
  CHECK(!parse_image_ref("wasm://sd/..", &r, &err));
  CHECK(!parse_image_ref("wasm://sd/a@sha256:12", &r, &err) && err.find("64 hex") != std::string::npos);
  CHECK(!parse_image_ref("wasm://embedded/", &r, &err));
  // The OCI-form aliases kubectl run accepts name the same images.
  CHECK(parse_image_ref("kube32.io/embedded/echo", &r, &err) && r.source == "embedded" && r.name == "echo");
  CHECK(parse_image_ref("kube32.io/sd/app@sha256:" + pin, &r, &err) && r.source == "sd" && r.name == "app" &&
        r.pin == std::string(64, 'a'));
  CHECK(!parse_image_ref("kube32.io/flash/x", &r, &err) && err.find("unknown source") != std::string::npos);
  CHECK(!parse_image_ref("kube32.io.evil/embedded/echo", &r, &err));
  ImageBytes b;
  std::string reason, msg;
  CHECK(parse_image_ref("wasm://embedded/echo@sha256:" + std::string(64, '0'), &r, &err));
  CHECK(!load_image(r, "", &b, &reason, &msg) && reason == "ImageDigestMismatch");
  ImageBytes b2;
  CHECK(parse_image_ref("wasm://embedded/nope", &r, &err));
  CHECK(!load_image(r, "", &b2, &reason, &msg) && reason == "ErrImagePull");
  ImageBytes b3;
  CHECK(parse_image_ref("wasm://sd/echo", &r, &err));
  CHECK(!load_image(r, "", &b3, &reason, &msg) && msg.find("no SD card") != std::string::npos);
}

static void test_log_ring() {
  LogRing ring(32);
  ring.line("one", 3);
  ring.line("two\n", 4);
  ring.line("three", 5);
  CHECK_EQ(ring.tail(-1), std::string("one\ntwo\nthree\n"));
  CHECK_EQ(ring.tail(2), std::string("two\nthree\n"));
  CHECK_EQ(ring.tail(0), std::string());
  uint64_t next = 0;
  CHECK_EQ(ring.read_from(4, &next), std::string("two\nthree\n"));
  CHECK_EQ(next, 14u);
  std::string big(40, 'x');
  ring.append(big.data(), big.size());  // bounded: only the newest 32 bytes stay
  CHECK_EQ(ring.tail(-1), std::string(32, 'x'));
  CHECK_EQ(ring.end(), 54u);
  CHECK_EQ(ring.read_from(0, &next).size(), 32u);  // an offset already dropped is clamped
  CHECK(!ring.wait_beyond(54, 10));
  CHECK(ring.wait_beyond(53, 10));
}

// Each line's prefix: "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ " within a few seconds of now.
static bool stamped_now(const std::string& line) {
  if (line.size() < 31 || line[19] != '.' || line[29] != 'Z' || line[30] != ' ') return false;
  int64_t t = text::parse_rfc3339(line.substr(0, 30));
  return t > 0 && t - port::wall_time_s() <= 1 && port::wall_time_s() - t <= 5;
}

static void test_log_ring_timestamps() {
  LogRing ring(64, 3 * sizeof(LogRing::LineMark));
  ring.line("one", 3);
  ring.append("tw", 2);  // a line written in two pieces has one time
  ring.append("o\nthr", 5);
  ring.append("ee\n", 3);
  std::string all = ring.tail(-1, true);
  std::vector<std::string> lines;
  for (size_t p = 0, nl; (nl = all.find('\n', p)) != std::string::npos; p = nl + 1) lines.push_back(all.substr(p, nl - p));
  CHECK_EQ(lines.size(), 3u);
  for (const auto& l : lines) CHECK(stamped_now(l));
  CHECK_EQ(lines[0].substr(31), std::string("one"));
  CHECK_EQ(lines[1].substr(31), std::string("two"));
  CHECK_EQ(lines[2].substr(31), std::string("three"));
  CHECK_EQ(ring.tail(-1), std::string("one\ntwo\nthree\n"));  // without the flag: the bytes as logged
  std::string last = ring.tail(1, true);
  CHECK(stamped_now(last) && last.substr(31) == "three\n");
  // A follower resuming inside a line gets no second prefix for it; the next line gets one.
  uint64_t next = 0;
  ring.append("fo", 2);
  uint64_t mid = ring.end();
  ring.append("ur\nfive\n", 8);
  std::string rest = ring.read_from(mid, &next, true);
  CHECK(rest.compare(0, 3, "ur\n") == 0 && stamped_now(rest.substr(3)) && rest.substr(3 + 31) == "five\n");
  // The index holds 3 lines: the oldest lines left the ring with their entries.
  CHECK_EQ(ring.tail(-1), std::string("three\nfour\nfive\n"));
  // A byte-bounded ring that cut a line's head still stamps what is left of it.
  LogRing small(8, 1024);
  small.line("abcdefghij", 10);
  std::string cut = small.tail(-1, true);
  CHECK(stamped_now(cut) && cut.substr(31) == "defghij\n");
  CHECK_EQ(small.read_from(0, &next, true), cut);
}

// A full ring holds its budget, not what a string's doubling leaves: 500-byte lines grow a
// string to 16000 bytes and then to 32000 if the bytes are appended before the oldest leave.
static void test_log_ring_heap_stays_in_budget() {
  const size_t cap = 16384, index = 64 * sizeof(LogRing::LineMark);
  const uint64_t before = k32test::heap_in_use();
  {
    LogRing ring(cap, index);
    std::string line(499, 'l');
    for (int i = 0; i < 200; ++i) ring.line(line.data(), line.size());
    CHECK_EQ(ring.tail(-1).size(), cap);  // the newest bytes, cap of them
    const uint64_t held = k32test::heap_in_use() - before;
    // The bytes, the line index (a deque of 512-byte blocks and its map) and a little slack.
    CHECK(held <= cap + 2 * index + 512);
  }
  CHECK_EQ(k32test::heap_in_use(), before);
}

// A restarted container's two logs share one ring's budget: resized to half, a ring keeps its
// newest bytes and holds the smaller cap from then on, in bytes and in heap.
static void test_log_ring_resize_holds_half() {
  const size_t cap = 4096, index = 64 * sizeof(LogRing::LineMark);
  const uint64_t before = k32test::heap_in_use();
  {
    LogRing ring(cap, index);
    std::string line(99, 'r');
    for (int i = 0; i < 60; ++i) ring.line(line.data(), line.size());
    CHECK_EQ(ring.tail(-1).size(), cap);
    ring.resize(cap / 2, index / 2);
    CHECK_EQ(ring.tail(-1).size(), cap / 2);
    CHECK_EQ(ring.end(), 6000u);  // offsets stay absolute
    for (int i = 0; i < 60; ++i) ring.line(line.data(), line.size());
    CHECK_EQ(ring.tail(-1).size(), cap / 2);
    CHECK(k32test::heap_in_use() - before <= cap / 2 + index + 512);
  }
  CHECK_EQ(k32test::heap_in_use(), before);
}

static void test_backoff() {
  CHECK_EQ(backoff_ms(1), kBackoffBaseMs);
  CHECK_EQ(backoff_ms(2), 2 * kBackoffBaseMs);
  CHECK_EQ(backoff_ms(3), 4 * kBackoffBaseMs);
  CHECK_EQ(backoff_ms(40), kBackoffMaxMs);
}

static std::string find_env(const std::vector<std::pair<std::string, std::string>>& v, const std::string& k) {
  for (const auto& e : v)
    if (e.first == k) return e.second;
  return "<unset>";
}

static void test_service_env() {
  json::Value pod =
      parse_json("{\"metadata\":{\"name\":\"client\",\"labels\":{\"app\":\"client\"}},\"spec\":{\"containers\":[]}}");
  json::Value svc =
      parse_json("{\"metadata\":{\"name\":\"my-db\"},\"spec\":{\"selector\":{\"app\":\"db\"},\"ports\":["
                 "{\"name\":\"http\",\"port\":80,\"targetPort\":7000},{\"name\":\"admin\",\"port\":81,\"targetPort\":7001}]}}");
  json::Value ep =
      parse_json("{\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.7\"}],\"ports\":[{\"name\":\"http\",\"port\":7000},{"
                 "\"name\":\"admin\",\"port\":7001}]}]}");
  std::vector<std::pair<std::string, std::string>> out;
  service_env(svc, ep, pod, "10.0.0.1", &out);
  CHECK_EQ(find_env(out, "MY_DB_SERVICE_HOST"), std::string("10.0.0.7"));
  CHECK_EQ(find_env(out, "MY_DB_SERVICE_PORT"), std::string("7000"));
  CHECK_EQ(find_env(out, "MY_DB_SERVICE_PORT_HTTP"), std::string("7000"));
  CHECK_EQ(find_env(out, "MY_DB_SERVICE_PORT_ADMIN"), std::string("7001"));
  CHECK_EQ(find_env(out, "MY_DB_PORT"), std::string("tcp://10.0.0.7:7000"));
  CHECK_EQ(find_env(out, "MY_DB_PORT_7001_TCP"), std::string("tcp://10.0.0.7:7001"));
  CHECK_EQ(find_env(out, "MY_DB_PORT_7001_TCP_PROTO"), std::string("tcp"));
  CHECK_EQ(find_env(out, "MY_DB_PORT_7001_TCP_PORT"), std::string("7001"));
  CHECK_EQ(find_env(out, "MY_DB_PORT_7001_TCP_ADDR"), std::string("10.0.0.7"));
  // A Service selecting the starting pod itself points at the local node.
  json::Value self =
      parse_json("{\"metadata\":{\"name\":\"client\"},\"spec\":{\"selector\":{\"app\":\"client\"},\"ports\":[{\"port\":"
                 "80,\"targetPort\":\"web\"}]}}");
  json::Value pod2 = parse_json("{\"metadata\":{\"labels\":{\"app\":\"client\"}},\"spec\":{\"containers\":[{\"ports\":[{\"name\":"
                                "\"web\",\"containerPort\":7000}]}]}}");
  out.clear();
  service_env(self, json::Value(), pod2, "10.0.0.1", &out);
  CHECK_EQ(find_env(out, "CLIENT_SERVICE_HOST"), std::string("10.0.0.1"));
  CHECK_EQ(find_env(out, "CLIENT_SERVICE_PORT"), std::string("7000"));
  // Headless, ExternalName, selector-less and backend-less Services inject nothing.
  for (const char* s : {"{\"metadata\":{\"name\":\"h\"},\"spec\":{\"clusterIP\":\"None\",\"selector\":{\"app\":\"db\"},\"ports\":"
                        "[{\"port\":1}]}}",
                        "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"type\":\"ExternalName\",\"selector\":{\"app\":\"db\"},"
                        "\"ports\":[{\"port\":1}]}}",
                        "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"ports\":[{\"port\":1}]}}"}) {
    out.clear();
    service_env(parse_json(s), ep, pod, "10.0.0.1", &out);
    CHECK(out.empty());
  }
  out.clear();
  service_env(svc, json::Value(), pod, "10.0.0.1", &out);
  CHECK(out.empty());
}

// A pod runtime built by hand (no API): the real ABI table and interpreter.
struct Harness {
  KubeletConfig cfg;
  Kubelet k{cfg, nullptr};
  Pod pod;
  Container c;
  Harness(const char* image, uint32_t pages, uint32_t caps) {
    pod.kubelet = &k;
    pod.ns = "default";
    pod.name = "t";
    c.pod = &pod;
    c.name = "c";
    c.image = image;
    c.max_pages = pages;
    c.caps = caps;
    c.env.assign("GREETING=hello from test", sizeof "GREETING=hello from test");  // with its '\0'
  }
};

static void test_echo_in_process() {
  Harness h("wasm://embedded/echo", 1, abi::kCapNone);
  std::string reason, msg;
  CHECK(instantiate_container(&h.c, "", &reason, &msg));
  CHECK(h.c.handle_fn && h.c.event_fn && !h.c.main_fn);
  CHECK(h.c.image_id.find("wasm://embedded/echo@sha256:") == 0);
  http::Request rq;
  rq.method = "POST";
  rq.path = "/echo/hello";
  rq.body = "ping";
  PodResponse resp;
  h.c.req = &rq;
  h.c.resp = &resp;
  wasm::Value res{0};
  wasm::Trap t = wasm::call(h.c.store, h.c.handle_fn, nullptr, 0, &res, 1);
  CHECK(t.ok());
  CHECK_EQ(resp.status, 200);
  CHECK_EQ(resp.body, std::string("hello from test\nPOST /echo/hello\nping"));
  // Without CHANNEL_IPC the publish answered K32_ERR_PERM, which echo logs.
  CHECK(h.c.log.tail(-1).find("publish failed: -1") != std::string::npos);
  // Response calls outside k32_handle are K32_ERR_INVAL, not a crash.
  h.c.req = nullptr;
  h.c.resp = nullptr;
  t = wasm::call(h.c.store, h.c.handle_fn, nullptr, 0, &res, 1);
  CHECK(t.ok());
  release_container(&h.c);
}

static void test_capability_granted() {
  Harness h("wasm://embedded/echo", 1, abi::kCapChannelIpc);
  std::string published;
  h.k.hooks().publish = [&](Container&, const std::string& topic, const std::string& data) {
    published = topic + ":" + data;
    return 0;
  };
  std::string reason, msg;
  CHECK(instantiate_container(&h.c, "", &reason, &msg));
  http::Request rq;
  rq.method = "GET";
  rq.path = "/p";
  PodResponse resp;
  h.c.req = &rq;
  h.c.resp = &resp;
  wasm::Value res{0};
  CHECK(wasm::call(h.c.store, h.c.handle_fn, nullptr, 0, &res, 1).ok());
  CHECK_EQ(published, std::string("echo.events:/p"));
  CHECK(h.c.log.tail(-1).empty());
  release_container(&h.c);
}

// Two pods of one image share its compiled module; each gets only the linear memory below
// the image's __heap_base (echo never sizes its memory), and the module goes with the last.
static void test_one_module_per_image_and_trimmed_memory() {
  size_t before = modules_cached();
  Harness a("wasm://embedded/echo", 1, abi::kCapNone), b("wasm://embedded/echo", 1, abi::kCapNone);
  std::string reason, msg;
  CHECK(instantiate_container(&a.c, "", &reason, &msg));
  CHECK(instantiate_container(&b.c, "", &reason, &msg));
  CHECK(a.c.module == b.c.module);
  CHECK_EQ(modules_cached(), before + 1);
  wasm::Caller caller{a.c.store, a.c.inst};
  uint32_t size = 0;
  CHECK(caller.memory(&size) != nullptr);
  CHECK(size > 0 && size < wasm::kPageSize);
  // Everything the store holds beyond that memory: the board's value stack and call frames
  // (a frame is three words), and at most 4 KiB more for the instance and the host functions
  // the module imports: 8 KiB in all on a classic ESP32.
  size_t runtime = wasm::store_bytes_in_use(a.c.store) - size;
  CHECK(runtime <= K32_WASM_VALUE_STACK_BYTES + K32_WASM_CALL_DEPTH * 3 * sizeof(void*) + 4096);
  release_container(&a.c);
  CHECK_EQ(modules_cached(), before + 1);
  release_container(&b.c);
  CHECK_EQ(modules_cached(), before);
}

// What a running echo pod holds beyond its linear memory and value stack — the kubelet's
// records of it (Pod, Container), its environment with the Service links of 10 apps, its
// instance, call frames and store — stays within the board's pod_state; the image's module
// is shared (another pod holds it) and not counted. The pod's log ring has its own budget.
static void test_pod_state_within_budget() {
  Harness other("wasm://embedded/echo", 1, abi::kCapNone);
  std::string reason, msg;
  CHECK(instantiate_container(&other.c, "", &reason, &msg));
  json::Value listed =
      parse_json("{\"metadata\":{\"name\":\"bm-9\",\"labels\":{\"app\":\"bm-9\"}},\"spec\":{\"containers\":[]}}");
  json::Value ep =
      parse_json("{\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.7\"}],\"ports\":[{\"name\":\"http\",\"port\":7000}]}]}");
  std::vector<std::pair<std::string, std::string>> vars{{"HOSTNAME", "bm-9"}};
  for (int i = 0; i < 10; ++i) {
    std::string svc =
        "{\"metadata\":{\"name\":\"bm-" + text::to_string(i) +
        "\"},\"spec\":{\"selector\":{\"app\":\"bm-x\"},\"ports\":[{\"name\":\"http\",\"port\":80,\"targetPort\":7000}]}}";
    service_env(parse_json(svc.c_str()), ep, listed, "10.0.0.1", &vars);
  }
  vars.push_back({"KUBERNETES_SERVICE_HOST", "10.0.0.1"});
  vars.push_back({"KUBERNETES_SERVICE_PORT", "6443"});
  CHECK_EQ(vars.size(), static_cast<size_t>(83));  // 8 a Service with one named port

  const uint64_t before = k32test::heap_in_use();
  auto p = std::make_shared<Pod>();
  p->kubelet = &other.k;
  p->ns = "default";
  p->name = "bm-9";
  p->uid = "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
  p->containers.push_back(std::unique_ptr<Container>(new Container()));
  Container& c = *p->containers[0];
  c.pod = p.get();
  c.name = "echo";
  c.image = "wasm://embedded/echo";
  c.max_pages = 1;
  c.env = env_block(vars);
  CHECK(instantiate_container(&c, "", &reason, &msg));
  CHECK(c.module == other.c.module);
  // The value stack and linear memory are the store's bulk blocks (PSRAM on an S3).
  const uint64_t state = k32test::heap_in_use() - before - wasm::store_bulk_bytes(c.store);
  std::printf("pod state beyond linear memory and value stack: %llu bytes (pod_state %u)\n",
              static_cast<unsigned long long>(state), static_cast<unsigned>(K32_POD_STATE_BYTES));
  // The budget is a board's (32-bit pointers, what the 32-bit ctest build checks); a 64-bit
  // host's pointers and std::string double much of it.
  CHECK(state <= (sizeof(void*) == 4 ? 1u : 2u) * K32_POD_STATE_BYTES);
  release_container(&c);
  release_container(&other.c);
}

static void test_env_block() {
  std::string b = env_block({{"A", "1"}, {"B", "x=y"}, {"A", "2"}});
  CHECK_EQ(b, std::string("B=x=y\0A=2\0", 10));
  CHECK(env_block({}).empty());
}

static void test_memory_limit() {
  Harness h("wasm://embedded/echo", 0, abi::kCapNone);  // limits.memory below one page
  std::string reason, msg;
  CHECK(!instantiate_container(&h.c, "", &reason, &msg));
  CHECK_EQ(reason, std::string("CreateContainerError"));
  CHECK(msg.find("limits.memory") != std::string::npos);
  CHECK(h.c.store == nullptr);
}

static void test_run_to_completion() {
  Harness h("wasm://embedded/hello", 1, abi::kCapNone);
  h.c.env.append("HOSTNAME=t", sizeof "HOSTNAME=t");  // with its '\0'
  std::string reason, msg;
  CHECK(instantiate_container(&h.c, "", &reason, &msg));
  CHECK(h.c.main_fn && h.c.main_returns && !h.c.handle_fn);
  wasm::Value res{1};
  CHECK(wasm::call(h.c.store, h.c.main_fn, nullptr, 0, &res, 1).ok());
  CHECK_EQ(static_cast<uint32_t>(res.bits), 0u);
  CHECK_EQ(h.c.log.tail(-1), std::string("hello from a Kube32 pod\nhello on stdout from t\n"));
  release_container(&h.c);

  Harness x("wasm://embedded/crasher", 1, abi::kCapNone);
  CHECK(instantiate_container(&x.c, "", &reason, &msg));
  wasm::Trap t = wasm::call(x.c.store, x.c.main_fn, nullptr, 0, &res, 1);
  CHECK(!t.ok() && t.code == wasm::TrapCode::Unreachable);
  release_container(&x.c);
  Harness y("wasm://embedded/crasher", 1, abi::kCapNone);
  y.c.env = {"CRASH_MODE=exit"};
  CHECK(instantiate_container(&y.c, "", &reason, &msg));
  CHECK(wasm::call(y.c.store, y.c.main_fn, nullptr, 0, &res, 1).ok());
  CHECK_EQ(static_cast<uint32_t>(res.bits), 3u);
  release_container(&y.c);
}

// An in-process call from a thread without the configured free stack is K32_ERR_NOMEM.
struct StackProbe {
  Kubelet* k;
  std::atomic<int32_t> rc{1};
};
static void stack_probe_main(void* a) {
  StackProbe* sp = static_cast<StackProbe*>(a);
  http::Request rq;
  PodResponse out;
  sp->rc = sp->k->call_pod("default/none", rq, &out);
}

static void test_stack_budget() {
  KubeletConfig cfg;
  cfg.inproc_stack_bytes = 128 * 1024;
  Kubelet k(cfg, nullptr);
  StackProbe small{&k};
  CHECK(port::thread_start("probe", 64 * 1024, port::Region::Any, &stack_probe_main, &small));
  StackProbe big{&k};
  CHECK(port::thread_start("probe", 512 * 1024, port::Region::Any, &stack_probe_main, &big));
  for (int i = 0; i < 500 && (small.rc == 1 || big.rc == 1); ++i) port::sleep_ms(10);
  CHECK_EQ(small.rc.load(), abi::kErrNomem);
  CHECK_EQ(big.rc.load(), abi::kErrNoent);  // enough stack: then the pod is looked up
}

// A runner that finds no heap for its stack leaves its container waiting with why, no thread
// counted, and the kubelet's tick tries it again once the container's back-off has ended: a
// runner never waits out a back-off on a thread of its own (container_runner.h).
static void test_runner_without_heap_waits_and_is_retried() {
  KubeletConfig cfg;
  cfg.runner_stack_bytes = 0xF0000000u;  // more than any profile's heap: every start is refused
  Kubelet k(cfg, nullptr);
  auto p = std::make_shared<Pod>();
  p->kubelet = &k;
  p->ns = "default";
  p->name = "big";
  p->containers.emplace_back(new Container());
  Container* c = p->containers[0].get();
  c->pod = p.get();
  c->name = "c";
  const auto check_waiting = [&](uint32_t retry_s) {
    port::LockGuard<port::Mutex> lock(p->mu);
    CHECK_EQ(p->runners, 0);
    CHECK(c->next == Container::Next::Start);
    CHECK(c->state.kind == ContainerState::Waiting);
    CHECK_EQ(c->state.reason, std::string("CreateContainerError"));
    CHECK(c->state.message.find("retried in " + text::to_string(retry_s) + "s") != std::string::npos);
    CHECK_EQ(c->restarts, 0);  // never started: no restart counted
    CHECK_EQ(k.runner_starts().load(), 0);
    return c->next_due_ms;
  };
  const uint64_t before = port::monotonic_ms();
  CHECK(!start_runner(p, 0, RunnerStart::Start));
  const uint64_t due = check_waiting(kBackoffBaseMs / 1000);
  CHECK(due >= before + kBackoffBaseMs);
  start_due_runners(p, due - 1);  // not yet due: left as it is
  CHECK_EQ(check_waiting(kBackoffBaseMs / 1000), due);
  k.runner_starts().store(1);  // another runner's container is starting: this one waits its turn
  start_due_runners(p, due);
  k.runner_starts().store(0);
  CHECK_EQ(check_waiting(kBackoffBaseMs / 1000), due);
  start_due_runners(p, due);  // due: tried, refused again, and the back-off grows
  CHECK(check_waiting(2 * kBackoffBaseMs / 1000) > due);
  p->stopping = true;  // a stopping pod's container is not started again
  start_due_runners(p, UINT64_MAX);
  CHECK(check_waiting(2 * kBackoffBaseMs / 1000) > due);
}

int main() {
  test_embedded_digests();
  test_image_refs();
  test_log_ring();
  test_log_ring_timestamps();
  test_log_ring_heap_stays_in_budget();
  test_log_ring_resize_holds_half();
  test_backoff();
  test_service_env();
  test_echo_in_process();
  test_capability_granted();
  test_one_module_per_image_and_trimmed_memory();
  test_pod_state_within_budget();
  test_env_block();
  test_memory_limit();
  test_run_to_completion();
  test_stack_budget();
  test_runner_without_heap_waits_and_is_retried();
  TEST_MAIN_END();
}
