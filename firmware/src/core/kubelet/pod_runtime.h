// What the kubelet holds for each pod it runs: its containers' Wasm stores and instances,
// their state (what status reports), their logs, and the request being served.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/channels/channel_hub.h"
#include "core/http/http_message.h"
#include "core/json/json.h"
#include "core/kubelet/log_ring.h"
#include "wasm/wasm.h"
#include "port.h"

namespace k32 {
namespace kubelet {

class Kubelet;
struct Pod;

// A response a pod built in k32_handle.
struct PodResponse {
  int status = 200;
  std::vector<http::Header> headers;
  std::string body;
  bool sent = false;  // something was written (status, body or asset)
};

// Kubernetes container state, as containerStatuses reports it.
struct ContainerState {
  enum Kind : uint8_t { Waiting, Running, Terminated } kind = Waiting;
  std::string reason = "ContainerCreating";
  std::string message;
  int32_t exit_code = 0;
  int64_t started_at = 0;  // unix s
  int64_t finished_at = 0;
};

struct Container {
  Pod* pod = nullptr;
  std::string name;
  std::string image;
  std::string image_id;     // wasm://<source>/<name>@sha256:<hex> once loaded
  uint32_t caps = 0;        // abi::Capability bits
  uint32_t max_pages = 16;  // from limits.memory
  // "KEY=VALUE\0" entries back to back, built at each start: one block, not a string object
  // and a heap block per variable (Service links give a pod 7 variables per Service).
  std::string env;
  std::string config_error;  // a spec problem found at admission: the container never starts
  LogRing log;
  // The log of the instance before the last restart (--previous), made at the first restart:
  // most containers never restart, and a ring with its lock is a few hundred bytes.
  std::unique_ptr<LogRing> previous;
  bool has_previous = false;  // under Pod::mu; `previous` exists once it is set

  // ---- guarded by Pod::mu ----
  ContainerState state;
  bool has_last = false;
  ContainerState last;
  int32_t restarts = 0;
  bool ready = false;
  bool crashed = false;  // k32_handle trapped: the runner restarts the container
  // A request container's instance is up and its runner thread has ended (container_runner.h):
  // whoever ends the instance (a trap, the pod's stop) takes it from here.
  bool parked = false;
  int failures = 0;  // restarts in a row without kBackoffResetS of running (the runner's)
  // The runner this container needs next while none runs (container_runner.h): a restart
  // after its back-off, or a start or resume whose thread found no heap. The kubelet's tick
  // starts it once next_due_ms (port::monotonic_ms()) has come; no thread waits for it.
  enum class Next : uint8_t { None, Start, Restart, Resume } next = Next::None;
  uint64_t next_due_ms = 0;
  std::string crash_message;
  bool busy = false;  // a k32_handle/k32_event call holds the gate (call_watch.h)

  // A request pod's instance is up: k32_handle/k32_event may be entered. Never set for
  // run-to-completion containers, whose k32_main holds call_mu for its whole run.
  std::atomic<bool> accepting{false};
  // ---- the instance; call_mu serialises every entry into it ----
  port::Mutex call_mu;
  port::Mutex store_mu;  // guards `store` for store_interrupt from other threads
  // ---- the call in progress, for the watch that interrupts it (under store_mu) ----
  uint64_t call_deadline_ms = 0;  // 0: no call armed
  bool call_overdue = false;      // the watch interrupted it for its deadline
  wasm::Module* module = nullptr;
  wasm::Store* store = nullptr;
  wasm::Instance* inst = nullptr;
  const wasm::Memory* memory = nullptr;  // inst's linear memory, found by note_memory (store_mu)
  wasm::Func* handle_fn = nullptr;
  wasm::Func* event_fn = nullptr;
  wasm::Func* main_fn = nullptr;
  bool main_returns = false;    // k32_main (returns i32) vs _start
  bool heap_refused = false;    // an allocation for this container was refused to keep the node's heap reserve
  bool import_refused = false;  // a shared host function for an import could not be made (no heap)
  wasm::WasiConfig wasi{};
  std::vector<const char*> wasi_env;
  const char* wasi_argv[1] = {nullptr};

  // ---- usage for the metrics API (pod_usage.h); atomics: the heartbeat reads them ----
  std::atomic<uint64_t> cpu_us{0};           // interpreter time of the calls that returned
  std::atomic<uint64_t> call_started_us{0};  // when the call in progress entered; 0: none
  std::atomic<uint64_t> memory_bytes{0};     // the instance's linear memory, last seen

  // ---- per call (under call_mu) ----
  const http::Request* req = nullptr;
  PodResponse* resp = nullptr;
  const std::string* ev_topic = nullptr;
  const std::string* ev_data = nullptr;
  int32_t last_http_status = 0;
  // The size of the last answer's body, reserved for the next one before k32_handle runs: a
  // handler writes its answer in pieces, and a string grown piece by piece is reallocated
  // several times per request. At most what one write may bring (K32_POD_ARG_MAX).
  uint32_t body_hint = 0;
};

struct Pod {
  Kubelet* kubelet = nullptr;
  std::string ns, name, uid;
  // No copy of the pod object is kept (it took ~3 KB a pod): the sync pass hands the listed
  // pod to what needs it, and a container start reads it from the API (pod_env.cpp).
  enum class Restart : uint8_t { Always, OnFailure, Never } restart = Restart::Always;
  std::vector<std::unique_ptr<Container>> containers;
  std::atomic<bool> stopping{false};
  port::Mutex mu;
  port::CondVar cv;
  int runners = 0;                 // container runner threads still alive (under mu)
  std::atomic<uint32_t> calls{0};  // requests running or waiting for a container (cap: K32_POD_CALLS_MAX)
  int64_t start_time = 0;
  uint64_t started_us = 0;    // port::monotonic_us() at start: the first CPU reading's window
  int64_t memory_charge = 0;  // what admission counted for this pod (sync thread only)
  // Channel topics delivered to k32_event (the kube32.io/event-topics annotation plus
  // k32_channel_subscribe), one hub subscription for all of them (under mu), served by the
  // node's event delivery thread (event_delivery.h).
  std::vector<std::string> topics;
  std::shared_ptr<channels::Subscription> sub;
  std::string key() const { return ns + "/" + name; }
};

}  // namespace kubelet
}  // namespace k32
