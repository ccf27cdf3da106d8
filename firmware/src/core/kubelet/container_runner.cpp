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
  bool resume;  // the container was parked and has ended: take it from there (resume_runner)
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

// Sleeps up to ms; false when the pod is stopping.
bool pause(Pod* p, uint32_t ms) {
  port::UniqueLock lock(p->mu);
  p->cv.wait_for(lock, ms, [p] { return p->stopping.load(); });
  return !p->stopping.load();
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
ContainerState run_once(Pod* p, Container* c, bool* parked) {
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

void runner_main(void* arg_p) {
  RunnerArg* arg = static_cast<RunnerArg*>(arg_p);
  std::shared_ptr<Pod> keep = arg->pod;
  Pod* p = keep.get();
  Container* c = p->containers[arg->index].get();
  bool resume = arg->resume;
  delete arg;
  int& failures = c->failures;  // one runner at a time per container; they follow each other
  while (!p->stopping || resume) {
    ContainerState t;
    if (resume) {
      int64_t started_at;
      {
        port::LockGuard<port::Mutex> lock(p->mu);
        started_at = c->state.started_at;
      }
      t = end_request(p, c, started_at);
      resume = false;
    } else {
      bool parked = false;
      t = run_once(p, c, &parked);
      if (parked) break;
    }
    if (p->stopping) break;
    bool restart = p->restart == Pod::Restart::Always || (p->restart == Pod::Restart::OnFailure && t.exit_code != 0);
    if (!restart) {
      set_state(p, c, t, false);
      break;
    }
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
    if (!pause(p, delay)) break;
    // The next instance starts with a fresh log; the newest half of the old one is
    // --previous, and the new one has the other half: a container's two logs together stay
    // within one log_ring and log_line_index, which is what its pod is charged for
    // (pod_overhead), so a restart never takes heap the node did not admit.
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
    {
      port::LockGuard<port::Mutex> lock(p->mu);
      c->has_previous = true;
      c->restarts++;
      c->state = waiting("ContainerCreating", "");
    }
  }
  port::LockGuard<port::Mutex> lock(p->mu);
  p->runners--;
  p->cv.notify_all();
}

}  // namespace

uint32_t backoff_ms(int failures) {
  uint64_t d = kBackoffBaseMs;
  for (int i = 1; i < failures && d < kBackoffMaxMs; ++i) d *= 2;
  return d > kBackoffMaxMs ? kBackoffMaxMs : static_cast<uint32_t>(d);
}

bool start_runner(const std::shared_ptr<Pod>& pod, size_t index, bool resume) {
  RunnerArg* arg = new RunnerArg{pod, index, resume};
  {
    port::LockGuard<port::Mutex> lock(pod->mu);
    pod->runners++;
  }
  if (util::start_work_thread("pod", pod->kubelet->config().runner_stack_bytes, pod->kubelet->config().runner_stack_region,
                              &runner_main, arg))
    return true;
  delete arg;
  port::LockGuard<port::Mutex> lock(pod->mu);
  pod->runners--;
  return false;
}

}  // namespace kubelet
}  // namespace k32
