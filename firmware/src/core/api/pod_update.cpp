#include "core/api/pod_update.h"

namespace k32 {
namespace api {

namespace {

// The spec with the mutable fields taken out, so what remains must be equal.
json::Value frozen_part(json::Value spec) {
  for (const char* list : {"containers", "initContainers"})
    if (json::Value* cs = spec.find(list))
      for (auto& c : cs->items()) c.erase("image");
  spec.erase("activeDeadlineSeconds");
  spec.erase("tolerations");
  spec.erase("schedulingGates");
  spec.erase("terminationGracePeriodSeconds");
  return spec;
}

bool tolerations_only_added(const json::Value& old, const json::Value& now) {
  for (const auto& t : old["tolerations"].items()) {
    bool kept = false;
    for (const auto& u : now["tolerations"].items()) kept = kept || u == t;
    if (!kept) return false;
  }
  return true;
}

bool grace_change_allowed(const json::Value& old, const json::Value& now) {
  const json::Value& a = old["terminationGracePeriodSeconds"];
  const json::Value& b = now["terminationGracePeriodSeconds"];
  if (a == b) return true;
  return a.is_int() && a.as_int() < 0 && b.is_int() && b.as_int() == 1;
}

bool gates_only_removed(const json::Value& old, const json::Value& now) {
  for (const auto& g : now["schedulingGates"].items()) {
    bool had = false;
    for (const auto& o : old["schedulingGates"].items()) had = had || o == g;
    if (!had) return false;
  }
  return true;
}

}  // namespace

void validate_pod_update(const json::Value& old, const json::Value& updated, FieldErrors* errs) {
  const json::Value& a = old["spec"];
  const json::Value& b = updated["spec"];
  if (frozen_part(a) == frozen_part(b) && tolerations_only_added(a, b) && grace_change_allowed(a, b) && gates_only_removed(a, b))
    return;
  errs->push_back({"spec", "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
                           "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions "
                           "to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
                           "was previously negative)"});
}

}  // namespace api
}  // namespace k32
