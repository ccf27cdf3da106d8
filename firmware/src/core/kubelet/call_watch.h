// What one pod's k32_handle/k32_event calls may take from its node. Calls into a container
// run one at a time (its instance is single-threaded); a request waits for its turn at a
// gate, never longer than its deadline. A pod has at most K32_POD_CALLS_MAX requests
// running or waiting on the node, so a pod whose handler hangs holds a few connections,
// not all of them. A watch thread interrupts a call past its deadline (the request gets
// 504) and every call of a pod being stopped, again on every tick while the call runs:
// the Wasm store clears its interrupt flag when a call starts, so one interrupt sent just
// before a call begins would otherwise be lost.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

enum class Gate : uint8_t { Ok, Stopping, Timeout };

// Waits until the container has no call running (or the pod stops, or deadline_ms passes),
// then holds the gate; release with leave_call.
Gate enter_call(Pod* p, Container* c, uint64_t deadline_ms);
void leave_call(Pod* p, Container* c);

// Around wasm::call (the caller holds c->call_mu): arm_call records the deadline the watch
// enforces, false when the pod is stopping (do not call); disarm_call ends it and says
// whether the watch interrupted the call for its deadline.
bool arm_call(Pod* p, Container* c, uint64_t deadline_ms);
bool disarm_call(Container* c);

// One tick of the watch: interrupts every armed call past its deadline or of a stopping pod.
void watch_calls(const std::vector<std::shared_ptr<Pod>>& pods, uint64_t now_ms);

}  // namespace kubelet
}  // namespace k32
