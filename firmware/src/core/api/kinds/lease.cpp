// Lease (coordination.k8s.io/v1): stored as written (node heartbeats, leader election);
// kubectl's columns.
#include "core/api/kinds/kind_strategy.h"

namespace k32 {
namespace api {

namespace {

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Holder", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(o["spec"]["holderIdentity"].as_string()); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kLeaseKind = {
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
