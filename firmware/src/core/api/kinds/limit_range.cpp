// LimitRange (v1): per-namespace bounds and defaults for container and pod resources. Kube32
// stores and serves it (kubectl, apply, watch) but admits pods without applying it: the
// kubelet's own admission checks each board's capacity instead.
//
// Defaults and validation follow kube-apiserver, so what a user reads back is what a cluster
// would store; `kubectl get` prints NAME and CREATED AT.
#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

const char* const kMaps[] = {"max", "min", "default", "defaultRequest", "maxLimitRequestRatio"};

// A Container item gets a default limit from max, and a default request from the default
// limit or else from min (SetDefaults_LimitRangeItem); empty maps are not stored.
void defaults(json::Value* obj) {
  json::Value* limits = obj->at_or_insert("spec").find("limits");
  if (!limits) return;
  for (auto& item : limits->items()) {
    if (!item.is_object() || item["type"].as_string() != "Container") continue;
    json::Value def = item["default"].is_object() ? item["default"] : json::Value::object();
    json::Value req = item["defaultRequest"].is_object() ? item["defaultRequest"] : json::Value::object();
    for (const auto& kv : item["max"].members())
      if (!def.find(kv.first)) def.set(kv.first, kv.second);
    for (const auto& kv : def.members())
      if (!req.find(kv.first)) req.set(kv.first, kv.second);
    for (const auto& kv : item["min"].members())
      if (!req.find(kv.first)) req.set(kv.first, kv.second);
    if (def.size()) item.set("default", def);
    if (req.size()) item.set("defaultRequest", req);
  }
}

void validate(const json::Value& obj, FieldErrors* errs) {
  const json::Value& limits = obj["spec"]["limits"];
  if (!limits.is_array()) {
    errs->push_back({"spec.limits", "Required value"});
    return;
  }
  for (size_t i = 0; i < limits.items().size(); ++i) {
    const json::Value& item = limits.items()[i];
    std::string p = "spec.limits[" + text::to_string(static_cast<int64_t>(i)) + "]";
    std::string type = item["type"].as_string();
    if (type.empty()) errs->push_back({p + ".type", "Required value"});
    else if (type != "Pod" && type != "Container" && type != "PersistentVolumeClaim")
      errs->push_back({p + ".type", "Unsupported value: \"" + type +
                                        "\": supported values: \"Container\", \"PersistentVolumeClaim\", \"Pod\""});
    for (const char* m : kMaps) validate_resource_list(item[m], p + "." + m, errs);
    // A pod has no limit or request of its own to default: only its containers do.
    if (type == "Pod") {
      if (item["default"].size()) errs->push_back({p + ".default", "Forbidden: may not be specified when `type` is 'Pod'"});
      if (item["defaultRequest"].size())
        errs->push_back({p + ".defaultRequest", "Forbidden: may not be specified when `type` is 'Pod'"});
    }
  }
}

json::Value created_at(const json::Value& o, int64_t) { return json::Value(o.path_str({"metadata", "creationTimestamp"})); }

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Created At", "date", "", 0, created_at},
};

}  // namespace

extern const KindStrategy kLimitRangeKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/false,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    defaults,
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
