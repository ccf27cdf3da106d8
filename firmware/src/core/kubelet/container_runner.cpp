#include "core/kubelet/container_runner.h"

#include "core/kubelet/kubelet.h"
#include "core/kubelet/pod_env.h"
#include "core/kubelet/pod_instance.h"
#include "core/kubelet/pod_usage.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "core/util/work_thread.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

struct RunnerArg {
  std::shared_ptr<Pod> pod;
  size_t index;
  RunnerStart how;
};

// The runner's place in Kubelet::runner_starts, given back once its container's start is over
// (or the runner ends).
class StartSlot {
 public:
  explicit StartSlot(std::atomic<int>* n) : n_(n) {}
  ~StartSlot() { release(); }
  void release() {
    if (n_) n_->fetch_sub(1);
    n_ = nullptr;
  }

 private:
  std::atomic<int>* n_;
};

void set_state(Pod* p, Container* c, const ContainerState& s, bool ready) {
  {
    port::LockGuard<port::Mutex> lock(p->mu);
    c->state = s;
    c->ready = ready;
  }
  p->kubelet->poke();
}

ContainerState waiting(const char* reason, const std::string& message) {
  ContainerState s;
  s.kind = ContainerState::Waiting;
  s.reason = reason;
  s.message = message;
  return s;
}

// A request container's instance has ended (it trapped, or the pod is stopping): frees it and
// returns its terminated state.
ContainerState end_request(Pod* p, Container* c, int64_t started_at) {
  ContainerState t;
  t.kind = ContainerState::Terminated;
  t.started_at = started_at;
  {
    port::LockGuard<port::Mutex> lock(p->mu);
    if (c->crashed) {
      t.exit_code = 1;
      t.reason = "Error";
      t.message = c->crash_message;
      c->crashed = false;
    } else {
      t.exit_code = 0;
      t.reason = "Completed";
    }
  }
  c->accepting = false;
  {
    port::LockGuard<port::Mutex> lock(c->call_mu);
    release_container(c);
  }
  t.finished_at = port::wall_time_s();
  return t;
}

// Runs the container once; returns its terminated state. A request container whose instance
// is up sets *parked instead and leaves it serving without this thread.
ContainerState run_once(Pod* p, Container* c, bool* parked, StartSlot* slot) {
  ContainerState t;
  t.kind = ContainerState::Terminated;
  std::string reason, message;
  bool ok;
  {
    port::LockGuard<port::Mutex> start(p->kubelet->start_mu());  // one start at a time (kubelet.h)
    std::string env_err = c->config_error;
    if (!env_err.empty() || !build_env(p, c, &c->env, &env_err)) {
      t.reason = "CreateContainerConfigError";
      t.message = env_err;
      t.exit_code = 1;
      return t;
    }
    port::LockGuard<port::Mutex> lock(c->call_mu);
    ok = instantiate_container(c, p->kubelet->config().sd_dir, &reason, &message);
  }
  slot->release();
  if (!ok) {
    t.reason = reason;
    t.message = message;
    t.exit_code = 128;
    p->kubelet->event(*p, "Warning", "Failed", "container " + c->name + ": " + message);
    logf("[KUBELET] %s container %s: %s", p->key().c_str(), c->name.c_str(), message.c_str());
    return t;
  }
  ContainerState run;
  run.kind = ContainerState::Running;
  run.reason.clear();
  run.started_at = port::wall_time_s();
  t.started_at = run.started_at;
  c->accepting = c->main_fn == nullptr;
  set_state(p, c, run, c->main_fn == nullptr);  // request pods are ready once instantiated
  p->kubelet->event(*p, "Normal", "Started", "Started container " + c->name);
  if (c->main_fn) {
    wasm::Value res{0};
    wasm::Trap trap;
    {
      port::LockGuard<port::Mutex> lock(c->call_mu);
      CpuClock cpu(c);
      trap = wasm::call(c->store, c->main_fn, nullptr, 0, &res, c->main_returns ? 1 : 0);
    }
    if (trap.ok()) {
      t.exit_code = c->main_returns ? static_cast<int32_t>(static_cast<uint32_t>(res.bits)) : 0;
    } else if (trap.code == wasm::TrapCode::Exit) {
      t.exit_code = trap.exit_code;
    } else if (trap.code == wasm::TrapCode::Interrupted && p->stopping) {
      t.exit_code = 137;
      t.message = "stopped";
    } else {
      t.exit_code = 1;
      t.message = "wasm trap: " + trap_message(c, trap);
      c->log.line(t.message.data(), t.message.size());
    }
    t.reason = t.exit_code == 0 ? "Completed" : "Error";
  } else {
    // A request pod lives until it is stopped or one of its calls traps, and its calls run on
    // the threads that bring them: it needs no thread of its own meanwhile. A board's task
    // stack is heap (16 KiB a pod here), so the runner ends; the trap starts the next runner
    // (resume_runner), the pod's stop frees the instance (Kubelet::stop_pod).
    {
      port::LockGuard<port::Mutex> lock(p->mu);
      if (!p->stopping.load() && !c->crashed) {
        c->parked = true;
        *parked = true;
        return t;
      }
    }
    return end_request(p, c, run.started_at);
  }
  c->accepting = false;
  {
    port::LockGuard<port::Mutex> lock(c->call_mu);
    release_container(c);
  }
  t.finished_at = port::wall_time_s();
  return t;
}

// After a back-off: the next instance starts with a fresh log; the newest half of the old one
// is --previous, and the new one has the other half: a container's two logs together stay
// within one log_ring and log_line_index, which is what its pod is charged for
// (pod_overhead), so a restart never takes heap the node did not admit.
void turn_over(Pod* p, Container* c) {
  const size_t half = K32_LOG_RING_BYTES / 2;
  if (!c->previous) {
    auto ring = std::unique_ptr<LogRing>(new LogRing(half, K32_LOG_LINE_INDEX_BYTES / 2));
    port::LockGuard<port::Mutex> lock(p->mu);
    c->previous = std::move(ring);
  }
  c->previous->clear();
  uint64_t next = 0;
  const uint64_t end = c->log.end();
  std::string old = c->log.read_from(end > half ? end - half : 0, &next);
  c->log.clear();
  c->log.resize(half, K32_LOG_LINE_INDEX_BYTES / 2);
  c->previous->append(old.data(), old.size());
  port::LockGuard<port::Mutex> lock(p->mu);
  c->has_previous = true;
  c->restarts++;
  c->state = waiting("ContainerCreating", "");
}

// Runs the container once (or ends its parked instance, `how` Resume) and, when restartPolicy
// restarts it, sets CrashLoopBackOff and returns the back-off; 0 when nothing follows (the
// container finished for good, is parked serving, or the pod is stopping).
uint32_t run_container(Pod* p, Container* c, RunnerStart how, StartSlot* slot) {
  if (p->stopping && how != RunnerStart::Resume) return 0;
  if (how == RunnerStart::Restart) turn_over(p, c);
  ContainerState t;
  if (how == RunnerStart::Resume) {
    int64_t started_at;
    {
      port::LockGuard<port::Mutex> lock(p->mu);
      started_at = c->state.started_at;
    }
    t = end_request(p, c, started_at);
  } else {
    bool parked = false;
    t = run_once(p, c, &parked, slot);
    if (parked) return 0;
  }
  if (p->stopping) return 0;
  bool restart = p->restart == Pod::Restart::Always || (p->restart == Pod::Restart::OnFailure && t.exit_code != 0);
  if (!restart) {
    set_state(p, c, t, false);
    return 0;
  }
  int& failures = c->failures;  // one runner at a time per container; they follow each other
  if (t.started_at && t.finished_at - t.started_at >= kBackoffResetS) failures = 0;
  ++failures;
  uint32_t delay = backoff_ms(failures);
  {
    port::LockGuard<port::Mutex> lock(p->mu);
    c->last = t;
    c->has_last = true;
    c->state = waiting("CrashLoopBackOff", "back-off " + text::to_string(delay / 1000) + "s restarting failed container=" +
                                               c->name + " pod=" + p->name + "_" + p->ns + "(" + p->uid + ")");
    c->ready = false;
  }
  p->kubelet->poke();
  p->kubelet->event(*p, "Warning", "BackOff", "Back-off restarting failed container " + c->name);
  return delay;
}

void runner_main(void* arg_p) {
  RunnerArg* arg = static_cast<RunnerArg*>(arg_p);
  std::shared_ptr<Pod> keep = arg->pod;
  Pod* p = keep.get();
  Container* c = p->containers[arg->index].get();
  const RunnerStart how = arg->how;
  delete arg;
  uint32_t delay;
  {
    StartSlot slot(&p->kubelet->runner_starts());
    delay = run_container(p, c, how, &slot);
  }
  // The back-off is waited out without this thread: on a board its stack is heap (16 KiB on
  // the esp32), and pods in back-off holding one each left the node's own work too little.
  port::LockGuard<port::Mutex> lock(p->mu);
  if (delay && !p->stopping) {
    c->next = Container::Next::Restart;
    c->next_due_ms = port::monotonic_ms() + delay;
  }
  p->runners--;
  p->cv.notify_all();
}

Container::Next next_of(RunnerStart how) {
  switch (how) {
    case RunnerStart::Start: return Container::Next::Start;
    case RunnerStart::Restart: return Container::Next::Restart;
    case RunnerStart::Resume: return Container::Next::Resume;
  }
  return Container::Next::Start;
}

RunnerStart how_of(Container::Next next) {
  return next == Container::Next::Restart  ? RunnerStart::Restart
         : next == Container::Next::Resume ? RunnerStart::Resume
                                           : RunnerStart::Start;
}

// Starts the runner of a container already counted in pod->runners. Without a thread the
// container waits with why, and is tried again after its back-off (start_due_runners).
bool launch(const std::shared_ptr<Pod>& pod, size_t index, RunnerStart how) {
  RunnerArg* arg = new RunnerArg{pod, index, how};
  const KubeletConfig& cfg = pod->kubelet->config();
  pod->kubelet->runner_starts().fetch_add(1);  // the runner gives it back (StartSlot)
  if (util::start_work_thread("pod", cfg.runner_stack_bytes, cfg.runner_stack_region, &runner_main, arg)) return true;
  pod->kubelet->runner_starts().fetch_sub(1);
  delete arg;
  Container* c = pod->containers[index].get();
  uint32_t delay;
  {
    port::LockGuard<port::Mutex> lock(pod->mu);
    pod->runners--;
    delay = backoff_ms(++c->failures);
    c->next = next_of(how);
    c->next_due_ms = port::monotonic_ms() + delay;
    if (how == RunnerStart::Resume) c->parked = true;  // until then, the pod's stop frees its instance
    c->state = waiting("CreateContainerError", "not enough memory on the node for the container's thread (" +
                                                   text::to_string(cfg.runner_stack_bytes / 1024) +
                                                   " KiB beside its heap reserve): retried in " + text::to_string(delay / 1000) +
                                                   "s");
    c->ready = false;
    pod->cv.notify_all();
  }
  logf("[KUBELET] %s container %s: no heap for its thread, retried in %u s", pod->key().c_str(), c->name.c_str(),
       static_cast<unsigned>(delay / 1000));
  pod->kubelet->poke();
  return false;
}

}  // namespace

uint32_t backoff_ms(int failures) {
  uint64_t d = kBackoffBaseMs;
  for (int i = 1; i < failures && d < kBackoffMaxMs; ++i) d *= 2;
  return d > kBackoffMaxMs ? kBackoffMaxMs : static_cast<uint32_t>(d);
}

bool start_runner(const std::shared_ptr<Pod>& pod, size_t index, RunnerStart how) {
  {
    port::LockGuard<port::Mutex> lock(pod->mu);
    pod->runners++;
  }
  return launch(pod, index, how);
}

void start_due_runners(const std::shared_ptr<Pod>& pod, uint64_t now_ms) {
  for (size_t i = 0; i < pod->containers.size(); ++i) {
    // One runner starting at a time (Kubelet::runner_starts): the others stay due and start
    // on a later tick, without a stack held meanwhile.
    if (pod->kubelet->runner_starts().load() > 0) return;
    Container* c = pod->containers[i].get();
    RunnerStart how;
    {
      // Claimed and counted under the pod's lock, which stop_pod takes after setting
      // `stopping`: a stopping pod never gets a runner it does not wait for.
      port::LockGuard<port::Mutex> lock(pod->mu);
      if (pod->stopping || c->next == Container::Next::None || now_ms < c->next_due_ms) continue;
      how = how_of(c->next);
      c->next = Container::Next::None;
      if (how == RunnerStart::Resume) c->parked = false;  // the runner frees the instance now
      pod->runners++;
    }
    launch(pod, i, how);
  }
}

}  // namespace kubelet
}  // namespace k32
