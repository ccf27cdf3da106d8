// Namespace: its defaults (the metadata.name label, the "kubernetes" finalizer, phase Active)
// and deletion: the namespace turns Terminating and the server deletes everything in it
// before the namespace itself goes (what the namespace controller does on a cluster).
#include "core/api/kinds/kind_strategy.h"

namespace k32 {
namespace api {

namespace {

void defaults(json::Value* obj) {
  json::Value& md = obj->at_or_insert("metadata");
  md.at_or_insert("labels").set("kubernetes.io/metadata.name", md["name"].as_string());
  json::Value& spec = obj->at_or_insert("spec");
  if (!spec.find("finalizers")) {
    json::Value f = json::Value::array();
    f.push("kubernetes");
    spec.set("finalizers", f);
  }
  json::Value& st = obj->at_or_insert("status");
  if (!st.find("phase")) st.set("phase", "Active");
}

void mark_terminating(json::Value* obj) { obj->at_or_insert("status").set("phase", "Terminating"); }

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Status", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["status"]["phase"].as_string()); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kNamespaceKind = {
    NameRule::Label,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/true,
    /*deletes_contents=*/true,
    /*prepare=*/nullptr,
    defaults,
    /*validate=*/nullptr,
    /*validate_update=*/nullptr,
    /*grace_period=*/nullptr,
    mark_terminating,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
