#include "core/kubelet/kubelet.h"

#include <cerrno>
#include <set>

#include "core/kubelet/call_watch.h"
#include "core/kubelet/container_runner.h"
#include "core/kubelet/module_load.h"
#include "core/kubelet/pod_event.h"
#include "core/kubelet/pod_instance.h"
#include "core/kubelet/pod_list.h"
#include "core/kubelet/pod_usage.h"
#include "core/kubelet/pod_status.h"
#include "core/sched/quantity.h"
#include "core/sched/scheduler.h"
#include "core/util/log.h"
#include "core/util/own_work.h"
#include "core/util/text.h"
#include "k32_abi_table.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

bool terminal(const json::Value& pod) {
  const std::string& ph = pod["status"]["phase"].str();
  return ph == "Succeeded" || ph == "Failed";
}

std::string pod_path(const std::string& ns, const std::string& name) { return "/api/v1/namespaces/" + ns + "/pods/" + name; }

}  // namespace

void Kubelet::poke() {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    poked_ = true;
  }
  wake_.notify_all();
}

void Kubelet::watch_tick() {
  std::vector<std::shared_ptr<Pod>> pods;
  size_t live;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (auto& kv : pods_) pods.push_back(kv.second);
    live = pods.size();
    for (auto it = stopping_.begin(); it != stopping_.end();) {
      std::shared_ptr<Pod>& sp = *it;
      bool done;
      {
        port::LockGuard<port::Mutex> plock(sp->mu);
        done = sp->runners == 0 && sp->calls.load() == 0;
      }
      if (done) {
        it = stopping_.erase(it);
      } else {
        pods.push_back(sp);
        ++it;
      }
    }
  }
  const uint64_t now = port::monotonic_ms();
  watch_calls(pods, now);
  for (size_t i = 0; i < live; ++i) start_due_runners(pods[i], now);
}

void Kubelet::run() {
  for (;;) {
    sync_once();
    port::UniqueLock lock(mu_);
    wake_.wait_for(lock, cfg_.sync_ms, [this] { return poked_; });
    poked_ = false;
  }
}

std::shared_ptr<Pod> Kubelet::find(const std::string& key) {
  port::LockGuard<port::Mutex> lock(mu_);
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second;
}

void Kubelet::event(const Pod& pod, const char* type, const char* reason, const std::string& message) {
  json::Value ev = make_pod_event(pod.ns, pod.name, pod.uid, type, reason, message, "kubelet", cfg_.node_name);
  api_->call("POST", "/api/v1/namespaces/" + pod.ns + "/events", &ev, nullptr);
}

bool Kubelet::subscribe(const std::shared_ptr<Pod>& p, const std::vector<std::string>& topics) {
  if (!hub_) return false;
  std::shared_ptr<channels::Subscription> old, made;
  {
    // Under the pod's lock, which stop_pod takes after setting `stopping`: a stopped pod never
    // gets a subscription nobody removes.
    port::LockGuard<port::Mutex> lock(p->mu);
    if (p->stopping) return false;
    const size_t had = p->topics.size();
    for (const auto& t : topics) {
      bool have = false;
      for (const auto& x : p->topics) have = have || x == t;
      if (!have && !t.empty()) p->topics.push_back(t);
    }
    if (p->sub && p->topics.size() == had) return true;
    old = p->sub;
    made = hub_->subscribe(p->topics, events_.waker());
    if (!events_.add(p->key(), made, old)) {
      p->topics.resize(had);  // not subscribed: a later call asks again
      old = nullptr;
    } else {
      p->sub = made;
      made = nullptr;
    }
  }
  if (made) {
    hub_->unsubscribe(made);
    return false;
  }
  if (old) hub_->unsubscribe(old);
  return true;
}

EventDelivery::Result Kubelet::deliver_hub_event(void* self, const std::string& key, const channels::Message& m,
                                                 uint64_t deadline_ms) {
  Kubelet* k = static_cast<Kubelet*>(self);
  std::shared_ptr<Pod> p = k->find(key);
  if (!p || p->stopping) return EventDelivery::Result::Gone;
  return k->deliver_event(p.get(), m.topic, m.payload, deadline_ms);
}

void Kubelet::start_pod(const json::Value& obj) {
  auto p = std::make_shared<Pod>();
  p->kubelet = this;
  p->ns = obj["metadata"]["namespace"].as_string();
  p->name = obj["metadata"]["name"].as_string();
  p->uid = obj["metadata"]["uid"].as_string();
  const std::string policy = obj["spec"]["restartPolicy"].as_string("Always");
  p->restart = policy == "Never" ? Pod::Restart::Never : policy == "OnFailure" ? Pod::Restart::OnFailure : Pod::Restart::Always;
  p->start_time = port::wall_time_s();
  p->started_us = port::monotonic_us();
  for (const auto& cs : obj["spec"]["containers"].items()) {
    auto c = std::unique_ptr<Container>(new Container());
    c->pod = p.get();
    c->name = cs["name"].as_string();
    c->image = cs["image"].as_string();
    std::string unknown;
    c->caps = capabilities_of(cs, &unknown);
    if (!unknown.empty())
      logf("[KUBELET] %s/%s container %s: ignoring unknown capabilities %s", p->ns.c_str(), p->name.c_str(), c->name.c_str(),
           unknown.c_str());
    c->max_pages = kDefaultMaxPages;
    const json::Value* lim = cs.path({"resources", "limits", "memory"});
    int64_t bytes = 0;
    if (lim) {
      std::string q = lim->is_int() ? text::to_string(lim->as_int()) : lim->as_string();
      if (sched::parse_quantity(q, &bytes))
        c->max_pages = static_cast<uint32_t>(bytes / wasm::kPageSize > 65536 ? 65536 : bytes / wasm::kPageSize);
      else c->config_error = "resources.limits.memory \"" + q + "\" is not a quantity (e.g. 64Ki, 1Mi)";
    }
    p->containers.push_back(std::move(c));
  }
  {
    port::LockGuard<port::Mutex> lock(mu_);
    pods_[p->key()] = p;
  }
  logf("[KUBELET] starting pod %s (%u container(s))", p->key().c_str(), static_cast<unsigned>(p->containers.size()));
  std::vector<std::string> topics;
  for (const std::string& t : text::split(obj["metadata"]["annotations"][kEventTopicsAnnotation].as_string(), ','))
    if (!text::trim(t).empty()) topics.push_back(text::trim(t));
  if (!topics.empty() && !subscribe(p, topics))
    logf("[KUBELET] pod %s: %s not subscribed (no channel hub here, or no heap for the event thread)", p->key().c_str(),
         kEventTopicsAnnotation);
  // A container whose thread finds no heap waits with why, and is started again later.
  for (size_t i = 0; i < p->containers.size(); ++i) start_runner(p, i, RunnerStart::Start);
}

void Kubelet::stop_pod(const std::shared_ptr<Pod>& p, uint32_t wait_ms) {
  p->stopping = true;
  {
    // The call watch keeps interrupting its calls until the last one ended.
    port::LockGuard<port::Mutex> lock(mu_);
    stopping_.push_back(p);
  }
  std::shared_ptr<channels::Subscription> sub;
  {
    port::LockGuard<port::Mutex> lock(p->mu);
    sub = p->sub;
    p->sub = nullptr;
  }
  if (sub) {
    events_.remove(sub);  // the others' delivery goes on; a message of it in progress ends below
    if (hub_) hub_->unsubscribe(sub);
  }
  for (auto& c : p->containers) {
    port::LockGuard<port::Mutex> lock(c->store_mu);
    if (c->store) wasm::store_interrupt(c->store);
  }
  port::UniqueLock lock(p->mu);
  p->cv.notify_all();
  p->cv.wait_for(lock, wait_ms, [&] { return p->runners == 0; });
  if (p->runners) logf("[KUBELET] pod %s: %d container(s) still stopping", p->key().c_str(), p->runners);
  // Request containers serving without a runner (container_runner.h) are freed here.
  std::vector<Container*> parked;
  for (auto& c : p->containers) {
    if (!c->parked) continue;
    c->parked = false;
    c->accepting = false;
    parked.push_back(c.get());
  }
  lock.unlock();
  for (Container* c : parked) {
    port::LockGuard<port::Mutex> call(c->call_mu);  // after the call in progress, interrupted above
    release_container(c);
  }
}

void Kubelet::stop_all() {
  std::vector<std::shared_ptr<Pod>> all;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (auto& kv : pods_) all.push_back(kv.second);
    pods_.clear();
  }
  for (auto& p : all) stop_pod(p, 5000);
}

namespace {
std::string ready_of(const json::Value& status) {
  for (const auto& c : status["conditions"].items())
    if (c["type"].str() == "Ready") return c["status"].as_string();
  return std::string();
}
}  // namespace

void Kubelet::report(Pod& p, const json::Value& listed) {
  // The status built, its text and the write: one piece of the node's own work, not beside a
  // container's start reads (util/own_work.h). Only the API is waited for inside it.
  util::OwnWorkTurn turn;
  json::Value status;
  std::string stored_ready;
  {
    port::LockGuard<port::Mutex> lock(p.mu);
    status = pod_status(p, cfg_.node_ip, listed);
    stored_ready = ready_of(listed["status"]);
  }
  // What was written is remembered as a hash of its text, not the text: a few bytes a pod.
  const size_t digest = std::hash<std::string>()(json::dump(status));
  {
    // Unchanged since our last write, unless the stored Ready differs: the node lifecycle
    // marks pods Ready=False while their node is NotReady, and the kubelet, back in touch,
    // must write its own view again.
    port::LockGuard<port::Mutex> lock(mu_);
    auto it = reported_.find(p.key());
    if (it != reported_.end() && it->second == digest && stored_ready == ready_of(status)) return;
  }
  // A merge patch of the status alone: no copy of the pod goes out, no resourceVersion to
  // conflict on, and the answer is not parsed. A reason or message the status no longer has
  // is removed (null in a merge patch).
  for (const char* k : {"reason", "message"})
    if (!status.find(k)) status.set(k, nullptr);
  json::Value body = json::Value::object();
  body.set("status", std::move(status));
  int rc = api_->call("PATCH", pod_path(p.ns, p.name) + "/status", &body, nullptr);
  if (rc != 200) return;  // not remembered: the next pass writes it again
  port::LockGuard<port::Mutex> lock(mu_);
  reported_[p.key()] = digest;
}

AdmitResult Kubelet::admit(const json::Value& obj) {
  int64_t used_mem = 0, used_pods = 0;
  std::vector<std::shared_ptr<Pod>> held;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (auto& kv : pods_)
      if (!kv.second->stopping) held.push_back(kv.second);
  }
  for (const auto& p : held) {
    // A pod is charged what it was admitted with, or what it really holds when that is
    // more: a container without a memory request or limit was admitted with only the
    // overhead, and its linear memory (up to the default pages) must not let the next pod
    // in past the heap.
    int64_t bytes = cfg_.budget.overhead;
    for (const auto& c : p->containers) {
      port::LockGuard<port::Mutex> lock(c->store_mu);
      if (c->store) bytes += static_cast<int64_t>(wasm::store_linear_bytes(c->store));
    }
    used_mem += bytes > p->memory_charge ? bytes : p->memory_charge;
    used_pods++;
  }
  // Each image's compiled module once, beside the pods (as the scheduler counts it).
  std::vector<std::vector<std::string>> images;
  images.reserve(held.size());
  for (const auto& p : held) {
    images.emplace_back();
    for (const auto& c : p->containers) {
      std::string key = sched::image_key(c->image);
      if (!key.empty()) images.back().push_back(std::move(key));
    }
  }
  held.clear();
  AdmitResult r = admit_pod(obj, cfg_.budget, used_mem, used_pods, module_load(obj, images, cfg_.sd_dir));
  if (r.admitted) return r;
  const std::string ns = obj["metadata"]["namespace"].as_string(), name = obj["metadata"]["name"].as_string();
  logf("[KUBELET] pod %s/%s rejected: %s", ns.c_str(), name.c_str(), r.message.c_str());
  json::Value st = json::Value::object();
  st.set("phase", "Failed");
  st.set("reason", r.reason);
  st.set("message", r.message);
  st.set("hostIP", cfg_.node_ip);
  st.set("startTime", text::rfc3339(port::wall_time_s()));
  // The class the API server gave the pod.
  if (obj["status"]["qosClass"].is_string()) st.set("qosClass", obj["status"]["qosClass"]);
  json::Value body = json::Value::object();
  body.set("status", std::move(st));
  api_->call("PATCH", pod_path(ns, name) + "/status", &body, nullptr);
  json::Value ev = make_pod_event(ns, name, obj["metadata"]["uid"].as_string(), "Warning", r.reason.c_str(), r.message, "kubelet",
                                  cfg_.node_name);
  api_->call("POST", "/api/v1/namespaces/" + ns + "/events", &ev, nullptr);
  return r;
}

void Kubelet::sync_pod(const json::Value& obj, std::set<std::string>* seen) {
  std::string key = obj["metadata"]["namespace"].as_string() + "/" + obj["metadata"]["name"].as_string();
  seen->insert(key);
  std::shared_ptr<Pod> p = find(key);
  if (p && p->uid != obj["metadata"]["uid"].as_string()) {  // same name, new pod
    stop_pod(p, 5000);
    port::LockGuard<port::Mutex> lock(mu_);
    pods_.erase(key);
    reported_.erase(key);
    p = nullptr;
  }
  bool deleting = !obj["metadata"]["deletionTimestamp"].is_null();
  if (deleting) {
    if (p) {
      int64_t grace = obj["metadata"]["deletionGracePeriodSeconds"].as_int(30);
      stop_pod(p, static_cast<uint32_t>(grace > 0 ? grace * 1000 : 1000));
      event(*p, "Normal", "Killing", "Stopping container(s) of pod " + key);
      port::LockGuard<port::Mutex> lock(mu_);
      pods_.erase(key);
      reported_.erase(key);
    }
    api_->call("DELETE",
               pod_path(obj["metadata"]["namespace"].as_string(), obj["metadata"]["name"].as_string()) + "?gracePeriodSeconds=0",
               nullptr, nullptr);
    return;
  }
  if (!p) {
    if (terminal(obj)) return;  // finished before this kubelet (re)started
    if (!obj.find("spec")) {    // deferred to the next pass (sync_once)
      poke();
      return;
    }
    AdmitResult ar = admit(obj);
    if (!ar.admitted) return;
    std::string why;
    if (hooks_.network_ready && !hooks_.network_ready(obj, &why)) {
      logf("[KUBELET] pod %s waits: %s", key.c_str(), why.c_str());
      return;
    }
    start_pod(obj);
    p = find(key);
    if (!p) return;
    p->memory_charge = ar.charge;
  }
  report(*p, obj);
}

bool Kubelet::sync_once() {
  // This node's pods as small views (pod_list.h), read a page and one item at a time, and
  // each page's pods started, stopped or reported once that page is freed: the pass holds
  // one page's views, not every pod's (ten pods' views were about 31 KiB held for a pass
  // while the pods started).
  std::vector<json::Value> page;
  std::set<std::string> seen;
  bool all_read = true, malformed = false, out_of_heap = false;
  uint32_t new_pods = 0;
  if (hooks_.pods_begin) hooks_.pods_begin();
  // Runs inside the page's read (ApiClient::read_page), which holds the node's own-work gate
  // (util/own_work.h) for the page's body and this item's tree: nothing here waits on another
  // thread. The item is parsed where it lies in the body (no copy of its text).
  const auto take = [&](const char* data, size_t len) {
    // A tree the heap cannot hold beside the pods and connections of the moment: the pass
    // stops as for a page that did not fit (below) instead of the parse stopping the node.
    if (!util::heap_holds_json(len)) {
      out_of_heap = true;
      return all_read = false;
    }
    json::Value item;
    json::ParseError pe;
    // An item that does not read ends the pass: a pod missing from the list is stopped.
    if (!json::parse_dropping(data, len, "managedFields", &item, &pe)) return all_read = false;
    if (item["spec"]["nodeName"].as_string() != cfg_.node_name) return true;  // the selector is advisory
    json::Value view = pod_view(std::move(item));
    // A pod this kubelet already runs needs no spec this pass (its status report reads
    // the listed status, its containers were made from the spec when it started): ten
    // running pods' specs were tens of KiB held while the next pods started.
    const std::string key = view["metadata"]["namespace"].as_string() + "/" + view["metadata"]["name"].as_string();
    std::shared_ptr<Pod> running = find(key);
    const bool mine_now = running && running->uid == view["metadata"]["uid"].as_string();
    // A new pod past this pass's K32_POD_STARTS_PER_SYNC waits for the next pass: no
    // spec held for it now (the sync skips a pod without one). A finished or refused
    // pod this kubelet does not run (Failed, Succeeded) is no new pod: counted, a few
    // of them listed first took every pass's starts and the pods after them never ran.
    const bool deleting = !view["metadata"]["deletionTimestamp"].is_null();
    const bool finished = !mine_now && terminal(view);
    const bool deferred = !mine_now && !deleting && !finished && new_pods++ >= K32_POD_STARTS_PER_SYNC;
    if ((!deleting && (mine_now || finished)) || deferred) view.erase("spec");
    page.push_back(std::move(view));
    return true;
  };
  const std::string path = "/api/v1/pods?fieldSelector=spec.nodeName%3D" + cfg_.node_name;
  std::string cont;
  int rc = 200;
  do {
    rc = api_->read_page(path, &cont, take, &malformed);
    if (rc == 200 && out_of_heap) rc = -ENOMEM;
    if (rc != 200 || malformed || !all_read) break;
    // A pod of an earlier page is acted on even when a later page fails to read: it was
    // listed as bound here. Only removing pods needs the whole list (below).
    for (const auto& obj : page) {
      if (hooks_.pod_listed) hooks_.pod_listed(obj);
      sync_pod(obj, &seen);
    }
    page.clear();
  } while (!cont.empty());
  if (rc == -ENOMEM) {
    // A page the heap could not hold beside the pods and connections of the moment: the pass
    // stops with nothing removed and the next one reads the list again.
    logf("[KUBELET] the pod list did not fit in the heap: sync retried");
  }
  if (rc != 200) return false;
  if (malformed || !all_read) {
    logf("[KUBELET] the pod list from the API server did not read: sync skipped");
    return false;
  }
  if (hooks_.pods_end) hooks_.pods_end();
  // Pods removed without a graceful phase (force delete, or deleted while Pending).
  std::vector<std::shared_ptr<Pod>> gone;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (auto it = pods_.begin(); it != pods_.end();) {
      if (!seen.count(it->first)) {
        gone.push_back(it->second);
        reported_.erase(it->first);
        it = pods_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& p : gone) {
    logf("[KUBELET] pod %s removed from the API: stopping it", p->key().c_str());
    stop_pod(p, 5000);
  }
  return true;
}

namespace {
// Holds one of the pod's request places (Pod::calls) for the scope; `ahead` is how many
// were taken before this one (read in the same atomic step, so two racing callers never
// both see a free place).
struct CallPlace {
  Pod* p;
  uint32_t ahead;
  explicit CallPlace(Pod* pod) : p(pod), ahead(p->calls.fetch_add(1)) {}
  ~CallPlace() { p->calls.fetch_sub(1); }
};
}  // namespace

int32_t Kubelet::call_pod(const std::string& key, const http::Request& rq, PodResponse* out, uint64_t deadline_ms) {
  // The budget is checked before anything else: a caller short of stack learns it at once.
  if (port::stack_free_bytes() < cfg_.inproc_stack_bytes) return abi::kErrNomem;
  std::shared_ptr<Pod> p = find(key);
  if (!p || p->stopping) return abi::kErrNoent;
  // The pod's own limit, or the in-process caller's timeout when that comes first.
  const uint64_t start = port::monotonic_ms();
  uint64_t deadline = start + cfg_.call_deadline_ms;
  if (deadline_ms && deadline_ms < deadline) deadline = deadline_ms;
  CallPlace place(p.get());
  if (place.ahead >= cfg_.pod_calls_max) return abi::kErrBusy;
  for (size_t index = 0; index < p->containers.size(); ++index) {
    Container* c = p->containers[index].get();
    if (!c->accepting) continue;
    Gate g = enter_call(p.get(), c, deadline);
    if (g == Gate::Stopping) return abi::kErrNoent;
    if (g == Gate::Timeout) return abi::kErrTimeout;
    port::UniqueLock lock(c->call_mu);
    bool restart = false;
    if (!c->handle_fn || !arm_call(p.get(), c, deadline)) {
      lock.unlock();
      leave_call(p.get(), c);
      if (p->stopping) return abi::kErrNoent;
      continue;
    }
    c->req = &rq;
    c->resp = out;
    if (c->body_hint) out->body.reserve(c->body_hint);
    wasm::Value res{0};
    wasm::Trap trap;
    {
      CpuClock cpu(c);
      trap = wasm::call(c->store, c->handle_fn, nullptr, 0, &res, 1);
    }
    bool overdue = disarm_call(c);
    c->req = nullptr;
    c->resp = nullptr;
    c->body_hint = static_cast<uint32_t>(out->body.size() < K32_POD_ARG_MAX ? out->body.size() : K32_POD_ARG_MAX);
    int32_t rv = static_cast<int32_t>(static_cast<uint32_t>(res.bits));
    int32_t rc = 0;
    if (!trap.ok() && trap.code == wasm::TrapCode::Interrupted && (overdue || p->stopping)) {
      // Ended from outside: the instance stays (the interpreter unwound cleanly); the pod's
      // log says why its request got no answer.
      std::string msg = overdue ? "k32_handle interrupted: no answer within " +
                                      text::to_string(static_cast<int64_t>(deadline - start)) + " ms"
                                : std::string("k32_handle interrupted: the pod is stopping");
      c->log.line(msg.data(), msg.size());
      *out = PodResponse();
      rc = overdue ? abi::kErrTimeout : abi::kErrNoent;
    } else if (!trap.ok()) {
      std::string msg = "wasm trap in k32_handle: " + trap_message(c, trap);
      c->log.line(msg.data(), msg.size());
      {
        port::LockGuard<port::Mutex> plock(p->mu);
        c->crashed = true;
        c->crash_message = msg;
        c->accepting = false;  // no call enters the trapped instance while it is restarted
        restart = c->parked;
        c->parked = false;
      }
      *out = PodResponse();
      out->status = 500;
      out->body = msg + "\n";
      out->sent = true;
    } else if (rv < 0 && !out->sent) {
      out->status = 500;
      out->body = "k32_handle returned " + text::to_string(rv) + "\n";
    }
    lock.unlock();
    leave_call(p.get(), c);
    // A parked container has no runner: one starts to restart it (per restartPolicy); without
    // heap for it, the container waits parked and is resumed later.
    if (restart) start_runner(p, index, RunnerStart::Resume);
    return rc;
  }
  return abi::kErrNoent;
}

EventDelivery::Result Kubelet::deliver_event(Pod* p, const std::string& topic, const std::string& data, uint64_t deadline_ms) {
  for (auto& cp : p->containers) {
    Container* c = cp.get();
    if (!c->accepting) continue;
    // Its turn now or not at all (a deadline already past never waits): the one delivery
    // thread serves the other pods while this one's instance is in a request.
    Gate g = enter_call(p, c, 0);
    if (g == Gate::Stopping) return EventDelivery::Result::Gone;
    if (g == Gate::Timeout) return EventDelivery::Result::Busy;
    port::UniqueLock lock(c->call_mu);
    if (!c->event_fn || !arm_call(p, c, deadline_ms)) {
      lock.unlock();
      leave_call(p, c);
      if (p->stopping) return EventDelivery::Result::Gone;
      continue;
    }
    c->ev_topic = &topic;
    c->ev_data = &data;
    wasm::Value res{0};
    wasm::Trap trap;
    {
      CpuClock cpu(c);
      trap = wasm::call(c->store, c->event_fn, nullptr, 0, &res, 1);
    }
    bool overdue = disarm_call(c);
    c->ev_topic = nullptr;
    c->ev_data = nullptr;
    if (!trap.ok()) {
      std::string msg = overdue ? "k32_event interrupted: not done within " + text::to_string(cfg_.call_deadline_ms) + " ms"
                                : "wasm trap in k32_event: " + trap_message(c, trap);
      c->log.line(msg.data(), msg.size());
    }
    lock.unlock();
    leave_call(p, c);
    return EventDelivery::Result::Done;
  }
  // No container takes events now (starting, restarting after a trap, or none exports
  // k32_event): the message is not kept for later, as a request would not be.
  return EventDelivery::Result::Done;
}

LogRing* Kubelet::log_of(const std::string& key, const std::string& container, bool previous, std::string* err,
                         std::shared_ptr<Pod>* keep) {
  std::shared_ptr<Pod> p = find(key);
  *keep = p;
  if (!p) {
    *err = "pod " + key + " does not run on node " + cfg_.node_name;
    return nullptr;
  }
  for (auto& c : p->containers) {
    if (!container.empty() && c->name != container) continue;
    if (!previous) return &c->log;
    port::LockGuard<port::Mutex> lock(p->mu);
    if (!c->has_previous) {
      *err = "previous terminated container \"" + c->name + "\" in pod \"" + p->name + "\" not found";
      return nullptr;
    }
    return c->previous.get();  // kept while *keep holds the pod: it is never freed before the container
  }
  *err = "container " + container + " is not valid for pod " + p->name;
  return nullptr;
}

}  // namespace kubelet
}  // namespace k32
