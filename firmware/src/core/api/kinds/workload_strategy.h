// The strategy Deployment and ReplicaSet share (apps/v1 workloads): the same name rule,
// generation and status rules, the hooks of core/api/workloads.cpp for their kind, and the
// same -o wide columns. Only the kind's name and its printed counts differ, so each kind's
// file keeps just those.
#pragma once
#include <cstddef>

#include "core/api/kinds/kind_strategy.h"
#include "core/api/workloads.h"

// The columns both kinds print last with -o wide: the template's containers and images and
// the selector.
// clang-format off
#define K32_WORKLOAD_WIDE_COLUMNS                                          \
  {"Containers", "string", "", 1, ::k32::api::workloads::containers_cell}, \
  {"Images", "string", "", 1, ::k32::api::workloads::images_cell},         \
  {"Selector", "string", "", 1, ::k32::api::workloads::selector_cell}
// clang-format on

namespace k32 {
namespace api {
namespace workloads {

// kKind names the kind ("Deployment", "ReplicaSet"); a template so that the hooks are plain
// functions and the strategy stays constant data.
template <const char* kKind>
struct Strategy {
  static void defaults(json::Value* obj) { apply_defaults(kKind, obj); }
  static void validate(const json::Value& obj, FieldErrors* errs) { workloads::validate(kKind, obj, errs); }
  static void validate_update(const json::Value& old, const json::Value& obj, FieldErrors* errs) {
    workloads::validate_update(kKind, old, obj, errs);
  }

  template <size_t N>
  static constexpr KindStrategy with_columns(const TableColumn (&columns)[N]) {
    return KindStrategy{
        NameRule::Subdomain,
        /*tracks_generation=*/true,
        /*resets_status_on_create=*/true,
        /*deletes_contents=*/false,
        /*prepare=*/nullptr,
        defaults,
        validate,
        validate_update,
        /*grace_period=*/nullptr,
        /*mark_terminating=*/nullptr,
        /*compute=*/nullptr,
        columns,
        column_count(columns),
    };
  }
};

}  // namespace workloads
}  // namespace api
}  // namespace k32
