// What makes one served kind different from the others, as kube-apiserver splits it: one
// generic store/REST path (api_read.cpp, api_write.cpp) and, per kind, a strategy with its
// defaults, validation, write preparation, status and deletion rules and `kubectl get`
// columns. Each kind's strategy lives in kinds/<kind>.cpp; kinds.def lists them.
//
// Everything here is constant data (function pointers, column arrays), so the whole table
// sits in flash and nothing is allocated for it at startup.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/validation.h"
#include "core/json/json.h"
#include "core/store/object_store.h"

namespace k32 {
namespace api {

// One column of the meta.k8s.io/v1 Table that `kubectl get` prints.
struct TableColumn {
  const char* name;
  const char* type;    // "string" or "integer"
  const char* format;  // "name" for the column kubectl uses as the object's name
  int priority;        // 0: always printed; 1: only with -o wide
  json::Value (*cell)(const json::Value& obj, int64_t now_s);
};

// Which name syntax the kind's metadata.name follows (kube-apiserver's per-kind choice).
enum class NameRule : uint8_t { Subdomain, Label, Dns1035Label };

struct KindStrategy {
  NameRule name_rule;
  // metadata.generation starts at 1 and counts spec changes (kinds with a spec a controller
  // acts on).
  bool tracks_generation;
  // A create drops the client's status: the server and the node's controllers own it.
  bool resets_status_on_create;
  // Deleting an object of this kind first deletes everything in it (Namespace): it stays
  // Terminating until then and its last finalizer does not complete the deletion by itself.
  bool deletes_contents;

  // Every hook may be null (nothing kind-specific at that step).
  // Before defaulting and validation, on every write: folds write-only fields (Secret's
  // stringData) into what is stored.
  void (*prepare)(json::Value* obj);
  // Server-set defaults, on create and on update (so a field cannot be unset by a write).
  void (*defaults)(json::Value* obj);
  // The kind's own field errors; metadata was checked by the generic path.
  void (*validate)(const json::Value& obj, FieldErrors* errs);
  // What an update (not a status write) may change relative to the stored object.
  void (*validate_update)(const json::Value& old, const json::Value& updated, FieldErrors* errs);
  // Graceful deletion (kube-apiserver's RESTGracefulDeleteStrategy): the seconds the object
  // stays, marked with a deletionTimestamp, before whoever runs it removes it; 0 deletes at
  // once. requested_s is the client's gracePeriodSeconds, -1 when it gave none.
  int64_t (*grace_period)(const json::Value& obj, int64_t requested_s);
  // Called when a deletion marks the object instead of removing it (Namespace's phase).
  void (*mark_terminating)(json::Value* obj);
  // Read-only kinds the server derives on each read from other objects (ns "" = all).
  std::vector<json::Value> (*compute)(store::ObjectStore* st, const std::string& ns, uint64_t* rv);

  const TableColumn* columns;
  uint8_t n_columns;
};

// Columns every kind shares, for the per-kind tables.
json::Value name_cell(const json::Value& obj, int64_t now_s);
json::Value age_cell(const json::Value& obj, int64_t now_s);
#define K32_NAME_COLUMN \
  { "Name", "string", "name", 0, ::k32::api::name_cell }
#define K32_AGE_COLUMN \
  { "Age", "string", "", 0, ::k32::api::age_cell }
// "a,b,c" as kubectl's printers join lists.
std::string join(const std::vector<std::string>& v, const char* sep);

template <size_t N>
constexpr uint8_t column_count(const TableColumn (&)[N]) {
  static_assert(N < 256, "a table has fewer than 256 columns");
  return static_cast<uint8_t>(N);
}

}  // namespace api
}  // namespace k32

namespace k32 {
namespace api {

// Every kind's strategy, declared from the table; each is defined in kinds/<kind>.cpp.
#define K32_KIND(group, version, resource, kind, singular, namespaced, read_only, short_names, categories, subresources, \
                 strategy) \
  extern const KindStrategy strategy;
#include "core/api/kinds/kinds.def"
#undef K32_KIND

}  // namespace api
}  // namespace k32
