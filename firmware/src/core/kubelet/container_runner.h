// A container's runner thread: starts it, runs it (k32_main/_start to completion), restarts it
// per restartPolicy with CrashLoopBackOff back-off. A request container (k32_handle) is served
// by the threads its calls arrive on, so its runner ends once the instance is up ("parked");
// a trap in a call starts a runner again to restart it, the pod's stop frees it.
#pragma once
#include <memory>

#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

// Starts the runner thread of pod->containers[index]; false when no thread could start (no
// heap for its stack). `resume`: the container was parked and its instance has ended (a trap):
// the runner frees it and goes on as after any end of the container.
bool start_runner(const std::shared_ptr<Pod>& pod, size_t index, bool resume = false);

// Back-off before restart number `failures` (1-based): base doubling, capped.
uint32_t backoff_ms(int failures);

}  // namespace kubelet
}  // namespace k32
