// Secret: stringData is write-only and folds into data (base64) before anything else sees
// the object; type defaults to Opaque; kubectl's columns.
#include "core/api/kinds/kind_strategy.h"
#include "core/util/base64.h"

namespace k32 {
namespace api {

namespace {

void fold_string_data(json::Value* obj) {
  const json::Value* found = obj->find("stringData");
  if (!found) return;
  // Copy first: inserting "data" may move the object's members (and `found` with them).
  json::Value sd = *found;
  json::Value& data = obj->at_or_insert("data");
  if (!data.is_object()) data = json::Value::object();
  for (const auto& kv : sd.members()) data.set(kv.first, base64_encode(kv.second.as_string()));
  obj->erase("stringData");
}

void defaults(json::Value* obj) {
  if (!obj->find("type")) obj->set("type", "Opaque");
}

void validate(const json::Value& obj, FieldErrors* errs) {
  validate_data_map(obj["data"], "data", true, errs);
  validate_data_map(obj["stringData"], "stringData", false, errs);
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Type", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["type"].as_string("Opaque")); }},
    {"Data", "integer", "", 0, [](const json::Value& o, int64_t) { return json::Value(static_cast<int64_t>(o["data"].size())); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kSecretKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/false,
    /*deletes_contents=*/false,
    fold_string_data,
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
