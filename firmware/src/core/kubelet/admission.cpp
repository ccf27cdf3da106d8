#include "core/kubelet/admission.h"

#include <cstdint>

#include "core/sched/scheduler.h"
#include "core/util/text.h"

namespace k32 {
namespace kubelet {

namespace {
std::string num(int64_t v) { return text::to_string(v); }
}  // namespace

AdmitResult admit_pod(const json::Value& pod, const NodeBudget& budget, int64_t used_memory, int64_t used_pods,
                      const ModuleLoad& modules) {
  AdmitResult r;
  std::string err;
  // A malformed quantity is the container's config error (CreateContainerConfigError, and
  // it never starts): admitted, charged nothing.
  if (!sched::pod_memory_charge(pod, &r.charge, &err)) {
    r.charge = 0;
    return r;
  }
  if (r.charge > INT64_MAX - budget.overhead) r.charge = INT64_MAX - budget.overhead;
  r.charge += budget.overhead;
  if (budget.pods > 0 && used_pods + 1 > budget.pods) {
    r.admitted = false;
    r.reason = "OutOfpods";
    r.message = "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: " + num(used_pods) +
                ", capacity: " + num(budget.pods);
    return r;
  }
  // The pod's charge stays its own (what later admissions count it as); the modules are
  // counted from the module cache each time, so they are added here only.
  const int64_t requested = modules.added > INT64_MAX - r.charge ? INT64_MAX : r.charge + modules.added;
  const int64_t used = modules.held > INT64_MAX - used_memory ? INT64_MAX : used_memory + modules.held;
  if (budget.memory > 0 && requested > budget.memory - used) {
    r.admitted = false;
    r.reason = "OutOfmemory";
    r.message = "Pod was rejected: Node didn't have enough resource: memory, requested: " + num(requested) +
                ", used: " + num(used) + ", capacity: " + num(budget.memory);
    if (!modules.named.empty()) r.message += " (with the compiled module of " + modules.named + ")";
  }
  return r;
}

}  // namespace kubelet
}  // namespace k32
