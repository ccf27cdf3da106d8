// ResourceQuota (v1): per-namespace caps on resource totals and object counts. Kube32 stores
// and serves it (kubectl, apply, watch, the status subresource) but does not enforce it or
// compute status.used: a board's own capacity bounds what runs on it.
//
// As on a cluster, status belongs to whoever computes usage (status subresource writes
// only); `kubectl get` prints each status.hard resource as "used/hard", requests and counts
// under REQUEST and "limits.*" under LIMIT.
#include <algorithm>

#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

void validate(const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  validate_resource_list(spec["hard"], "spec.hard", errs);
  for (const auto& s : spec["scopes"].items()) {
    static const char* const kScopes[] = {"Terminating",          "NotTerminating", "BestEffort",
                                          "NotBestEffort",        "PriorityClass",  "CrossNamespacePodAffinity",
                                          "VolumeAttributesClass"};
    bool known = false;
    for (const char* k : kScopes) known = known || s.as_string() == k;
    if (!known)
      errs->push_back({"spec.scopes", "Unsupported value: \"" + s.as_string() +
                                          "\": supported values: \"BestEffort\", \"CrossNamespacePodAffinity\", "
                                          "\"NotBestEffort\", \"NotTerminating\", \"PriorityClass\", \"Terminating\", "
                                          "\"VolumeAttributesClass\""});
  }
  validate_resource_list(obj["status"]["hard"], "status.hard", errs);
  validate_resource_list(obj["status"]["used"], "status.used", errs);
}

// "pods: 1/10, requests.cpu: 0/2" (limits == false) or the "limits.*" ones, sorted by name.
std::string usage(const json::Value& o, bool limits) {
  const json::Value& st = o["status"];
  std::vector<std::string> names;
  for (const auto& kv : st["hard"].members()) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) {
    if ((n.compare(0, 7, "limits.") == 0) != limits) continue;
    const json::Value& used = st["used"][n];
    const json::Value& hard = st["hard"][n];
    std::string u = used.is_null() ? "0" : used.is_string() ? used.str() : json::dump(used);
    std::string h = hard.is_string() ? hard.str() : json::dump(hard);
    out += (out.empty() ? "" : ", ") + n + ": " + u + "/" + h;
  }
  return out;
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    K32_AGE_COLUMN,
    {"Request", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(usage(o, false)); }},
    {"Limit", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(usage(o, true)); }},
};

}  // namespace

extern const KindStrategy kResourceQuotaKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/true,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    /*defaults=*/nullptr,
    validate,
    /*validate_update=*/nullptr,
    /*grace_period=*/nullptr,
    /*mark_terminating=*/nullptr,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
