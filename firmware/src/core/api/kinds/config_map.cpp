// ConfigMap: data keys and values checked as kube-apiserver does; kubectl's columns.
#include "core/api/kinds/kind_strategy.h"

namespace k32 {
namespace api {

namespace {

void validate(const json::Value& obj, FieldErrors* errs) {
  validate_data_map(obj["data"], "data", false, errs);
  validate_data_map(obj["binaryData"], "binaryData", true, errs);
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Data", "integer", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(static_cast<int64_t>(o["data"].size() + o["binaryData"].size())); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kConfigMapKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/false,
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
