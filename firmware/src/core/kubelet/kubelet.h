// The kubelet of a node (control plane and workers alike): lists the pods bound to this
// node through the API, runs their Wasm containers, reports their status, restarts them
// with back-off, stops them on deletion and serves their logs and in-process calls.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/kubelet/admission.h"
#include "core/kubelet/api_client.h"
#include "core/kubelet/event_delivery.h"
#include "core/kubelet/pod_runtime.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace kubelet {

struct KubeletConfig {
  std::string node_name;
  std::string node_ip;       // status.podIP and status.hostIP
  std::string sd_dir;        // card root for wasm://sd/ images; empty: no card
  std::string api_host;      // KUBERNETES_SERVICE_HOST
  uint16_t api_port = 6443;  // KUBERNETES_SERVICE_PORT
  uint32_t sync_ms = 2000;
  // Stack sizes from the board profile (k32_board.h).
  uint32_t runner_stack_bytes = K32_INPROC_CALL_STACK_BYTES;  // a container's runner: an interpreter stack
  // The node's k32_events thread (one for all pods) calls k32_event in-process: its own
  // budget plus the call's.
  uint32_t events_stack_bytes = K32_EVENTS_STACK_BYTES + K32_INPROC_CALL_STACK_BYTES;
  // Where those stacks go, as the profile places them (PSRAM on the S3: each pod has both).
  port::Region runner_stack_region = static_cast<port::Region>(K32_INPROC_CALL_STACK_REGION);
  port::Region events_stack_region = static_cast<port::Region>(K32_EVENTS_STACK_REGION);
  uint32_t inproc_stack_bytes = K32_INPROC_CALL_STACK_BYTES;  // free native stack an in-process call needs
  uint32_t call_deadline_ms = K32_POD_CALL_DEADLINE_MS;       // a call, waiting for its turn included
  uint32_t pod_calls_max = K32_POD_CALLS_MAX;                 // requests per pod running or waiting
  NodeBudget budget;                                          // what pods may take (the Node's allocatable); 0 = unchecked
};

// Restart back-off: base doubling per consecutive failure, capped; a container that ran
// kBackoffResetS without failing starts again from the base.
constexpr uint32_t kBackoffBaseMs = 2000;
constexpr uint32_t kBackoffMaxMs = 300000;
constexpr int64_t kBackoffResetS = 60;
// A container without limits.memory gets this many Wasm pages at most.
constexpr uint32_t kDefaultMaxPages = 16;
// Interpreter stacks of a container (RAM beyond linear memory, per pod), from the board
// profile: C pods keep their frames in the shadow stack inside linear memory, so a few
// KiB of value stack and a few dozen nested calls cover them.
constexpr uint32_t kValueStackSlots = K32_WASM_VALUE_STACK_BYTES / 8;
constexpr uint32_t kCallDepth = K32_WASM_CALL_DEPTH;
// Pods name channel topics for k32_event in this annotation (comma separated).
constexpr const char* kEventTopicsAnnotation = "kube32.io/event-topics";

// Hooks the channels and calls areas install (defaults answer K32_ERR_NOTSUP).
struct Hooks {
  std::function<int32_t(Container&, const std::string& topic, const std::string& data)> publish;
  std::function<int32_t(Container&, const std::string& topic)> subscribe;
  // Arguments are the raw k32_http_call arguments; the hook reads/writes guest memory.
  std::function<int32_t(Container&, wasm::Caller&, const wasm::Value* args)> http_call;
  // k32_resp_asset: the firmware's embedded bundle files (images/web/<bundle>/), and the
  // Content-Type of a file name; both live with the Ingress controller's static bundles.
  std::function<bool(const std::string& bundle, const std::string& path, const uint8_t** data, uint32_t* len)> embedded_asset;
  std::function<const char*(const std::string& path)> content_type;
  // NetworkPolicy on workers (labels recorded at every pod sync, a namespace's policies
  // loaded before its first pod starts). A sync acts on each page of its pod list as it is
  // read, so the pods of a pass come one at a time: pods_begin opens the pass, pod_listed
  // sees each pod bound to this node before the sync starts or reports it, pods_end closes
  // a pass whose whole list was read (a pass that fails is not closed: nothing is forgotten
  // on a partial list). network_ready runs right before a pod starts, and a pod it refuses
  // stays Pending until a later sync, so no pod ever runs before the policies that
  // restrict it are in force.
  std::function<void()> pods_begin;
  std::function<void(const json::Value& pod)> pod_listed;
  std::function<void()> pods_end;
  std::function<bool(const json::Value& pod, std::string* why)> network_ready;
};

class Kubelet {
 public:
  Kubelet(KubeletConfig cfg, ApiClient* api)
      : cfg_(std::move(cfg)),
        api_(api),
        events_(&Kubelet::deliver_hub_event, this, cfg_.events_stack_bytes, cfg_.events_stack_region, cfg_.call_deadline_ms) {}
  const KubeletConfig& config() const { return cfg_; }
  Hooks& hooks() { return hooks_; }
  // The node's channel hub: k32_event delivery and k32_channel_subscribe (set before run).
  void set_hub(channels::Hub* hub) { hub_ = hub; }
  // Adds topics to the pod's k32_event subscription, served by the node's one delivery
  // thread; false when the node has no hub, the pod is stopping or the thread cannot start.
  bool subscribe(const std::shared_ptr<Pod>& p, const std::vector<std::string>& topics);

  // Runs sync passes forever (every sync_ms, sooner when a container changes state).
  void run();
  static void thread_main(void* self) { static_cast<Kubelet*>(self)->run(); }
  // One pass: list this node's pods, start/stop, report status. False when the API
  // could not be reached.
  bool sync_once();

  // Delivers a request to the pod's k32_handle on the calling thread. Returns 0 with
  // *out filled, K32_ERR_NOENT (no such pod here / no handler / stopped meanwhile),
  // K32_ERR_NOMEM (not enough native stack for an in-process call), K32_ERR_BUSY (the pod
  // has pod_calls_max requests already), K32_ERR_TIMEOUT (not answered within
  // call_deadline_ms, or by deadline_ms when that comes first — an in-process caller's
  // timeout, port::monotonic_ms() time, 0 = none; a running handler is interrupted and the
  // pod keeps running).
  int32_t call_pod(const std::string& key, const http::Request& rq, PodResponse* out, uint64_t deadline_ms = 0);
  // A pod's call ended (call_watch.h): event delivery passed over busy pods offers again.
  void call_ended() { events_.retry(); }

  // Logs of a container ("" = the first one); *keep holds the pod while the ring is read.
  // nullptr with *err when unknown here.
  LogRing* log_of(const std::string& key, const std::string& container, bool previous, std::string* err,
                  std::shared_ptr<Pod>* keep);
  std::shared_ptr<Pod> find(const std::string& key);
  // Every pod running here now (pod_usage.cpp reads their usage).
  std::vector<std::shared_ptr<Pod>> running();

  // Called by container runners when a state changed: wakes the sync loop to report.
  void poke();
  // One tick of the call watch (call_watch.h) over the running pods and those still stopping,
  // and of the containers' runners that are due (a back-off ended: start_due_runners); the
  // node's main task runs it every POD_CALL_WATCH_MS. Not the sync loop (a pass waits on API
  // calls far longer than a tick) and not a thread of its own: on a board a task's stack is
  // heap, and the main task has nothing else to do once the node runs.
  void watch_tick();
  // A Kubernetes Event about a pod (best effort).
  void event(const Pod& pod, const char* type, const char* reason, const std::string& message);
  ApiClient* api() { return api_; }
  // Held by a container while it starts (its environment read, its instance made): one
  // start at a time on a node. A start holds its pod read whole, pages of the namespace's
  // Services and the interpreter's build state for a moment, and the API server serving
  // those reads holds more; ten pods starting together held all of theirs at once, past the
  // node's heap reserve (the seventh of ten apps applied in one go was refused).
  port::Mutex& start_mu() { return start_mu_; }
  // Runner threads between their start and the end of their container's start (start_mu):
  // the tick starts a due runner only while none is (start_due_runners), so containers whose
  // back-offs end together do not each hold a runner's stack while they queue for start_mu.
  std::atomic<int>& runner_starts() { return runner_starts_; }
  // Stops every pod (node shutdown, tests).
  void stop_all();

 private:
  // Admission (admission.h) against the pods running here; a rejected pod is written
  // Failed with the reason and gets a Warning event. Returns the result.
  AdmitResult admit(const json::Value& obj);
  void start_pod(const json::Value& obj);
  void stop_pod(const std::shared_ptr<Pod>& p, uint32_t wait_ms);
  // Writes p's status when it changed; `listed` is the pod as this sync pass read it.
  void report(Pod& p, const json::Value& listed);
  // One listed pod of a sync pass (its view, pod_list.h): started, stopped or reported.
  void sync_pod(const json::Value& obj, std::set<std::string>* seen);
  // The delivery thread's step for one message (EventDelivery::DeliverFn).
  static EventDelivery::Result deliver_hub_event(void* self, const std::string& key, const channels::Message& m,
                                                 uint64_t deadline_ms);
  // Runs the pod's k32_event for one message if its instance is free now (Busy otherwise).
  EventDelivery::Result deliver_event(Pod* p, const std::string& topic, const std::string& data, uint64_t deadline_ms);

  KubeletConfig cfg_;
  ApiClient* api_;
  Hooks hooks_;
  channels::Hub* hub_ = nullptr;
  port::Mutex mu_;
  port::Mutex start_mu_;
  std::atomic<int> runner_starts_{0};
  port::CondVar wake_;
  bool poked_ = false;
  std::map<std::string, std::shared_ptr<Pod>> pods_;
  std::vector<std::shared_ptr<Pod>> stopping_;  // stopped pods until their last call ended
  std::map<std::string, size_t> reported_;      // key -> hash of the last status written
  EventDelivery events_;                        // last: its thread ends before the rest goes
};

}  // namespace kubelet
}  // namespace k32
