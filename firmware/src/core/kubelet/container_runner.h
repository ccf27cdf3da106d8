// A container's runner thread: starts it, runs it (k32_main/_start to completion), and when
// restartPolicy restarts it, sets CrashLoopBackOff and ends: the kubelet's tick starts the next
// runner when the back-off has ended. A request container (k32_handle) is served by the threads
// its calls arrive on, so its runner ends once the instance is up ("parked"); a trap in a call
// starts a runner again to restart it, the pod's stop frees it.
#pragma once
#include <memory>

#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

// How a runner takes up its container.
enum class RunnerStart : uint8_t {
  Start,    // the container's first start
  Restart,  // its back-off has ended: the log turns over (--previous), restartCount + 1, a start
  Resume,   // it was parked and its instance has ended (a trap): the runner frees it and goes on
            // as after any end of the container
};

// Starts the runner thread of pod->containers[index]. When none can start (no heap for its
// stack beside the node's reserve) the container waits, CreateContainerError with why, and the
// kubelet's tick tries again after its back-off (start_due_runners); false then.
bool start_runner(const std::shared_ptr<Pod>& pod, size_t index, RunnerStart how);

// Starts the pod's runners that are due (Container::next): a restart whose back-off has ended,
// a start refused for heap whose retry has come. The kubelet's tick calls it for every pod it
// runs; a runner waits out no back-off on its own thread, whose stack is heap on a board.
// It starts none while another runner's container is starting (Kubelet::runner_starts).
void start_due_runners(const std::shared_ptr<Pod>& pod, uint64_t now_ms);

// Back-off before restart number `failures` (1-based): base doubling, capped.
uint32_t backoff_ms(int failures);

}  // namespace kubelet
}  // namespace k32
