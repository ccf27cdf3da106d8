// Event: stored as written (kubelets and controllers report them); kubectl's columns,
// which start with LAST SEEN and have no NAME.
#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

json::Value last_seen(const json::Value& o, int64_t now) {
  int64_t t = text::parse_rfc3339(o["lastTimestamp"].as_string(o["eventTime"].as_string()));
  return json::Value(t < 0 ? std::string("<unknown>") : text::human_duration(now - t));
}

json::Value object_cell(const json::Value& o, int64_t) {
  return json::Value(text::lower(o["involvedObject"]["kind"].as_string()) + "/" + o["involvedObject"]["name"].as_string());
}

const TableColumn kColumns[] = {
    {"Last Seen", "string", "", 0, last_seen},
    {"Type", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["type"].as_string()); }},
    {"Reason", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["reason"].as_string()); }},
    {"Object", "string", "", 0, object_cell},
    {"Message", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["message"].as_string()); }},
};

}  // namespace

extern const KindStrategy kEventKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/false,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    /*defaults=*/nullptr,
    /*validate=*/nullptr,
    /*validate_update=*/nullptr,
    /*grace_period=*/nullptr,
    /*mark_terminating=*/nullptr,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
