// One thread per container: start it, run it (k32_main/_start to completion, or serve
// k32_handle until it traps or the pod stops), restart it per restartPolicy with
// CrashLoopBackOff back-off.
#pragma once
#include <memory>

#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

// Starts the runner thread of pod->containers[index]; false when no thread could start.
bool start_runner(const std::shared_ptr<Pod>& pod, size_t index);

// Back-off before restart number `failures` (1-based): base doubling, capped.
uint32_t backoff_ms(int failures);

}  // namespace kubelet
}  // namespace k32
