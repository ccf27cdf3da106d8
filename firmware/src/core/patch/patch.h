// The PATCH engines of the API server: JSON Patch, JSON Merge Patch, Kubernetes strategic
// merge patch and server-side apply (with managedFields in the fieldsV1 format).
// Merge keys, list types and strategies come from the generated schema table
// (core/openapi/schema.h); none of these functions allocate outside the JSON model.
#pragma once
#include <string>
#include <vector>

#include "core/json/json.h"

namespace k32 {
namespace patch {

// RFC 6902 JSON Patch (add/remove/replace/move/copy/test; JSON Pointer escaping).
// On failure *out is untouched and *err names the failing operation, e.g.
// "operation 2 (remove): path /spec/foo does not exist".
bool json_patch(const json::Value& doc, const json::Value& ops, json::Value* out, std::string* err);

// RFC 7386 JSON Merge Patch.
void merge_patch(const json::Value& doc, const json::Value& patch, json::Value* out);

// Kubernetes strategic merge patch for built-in kinds (merge keys from the generated schema;
// directives $patch: replace|merge|delete, $retainKeys, $setElementOrder/<list>,
// $deleteFromPrimitiveList/<list>; null deletes a field).
bool strategic_merge(const std::string& kind_key, const json::Value& doc, const json::Value& patch, json::Value* out,
                     std::string* err);

// Server-side apply: merges `applied` (the manager's full intent) into `live`, removing fields
// this manager owned before (from live.metadata.managedFields, fieldsV1 format) that it no
// longer sets, and updating metadata.managedFields for `manager` (operation Apply, fieldsV1)
// with the set of fields it now owns. Conflicts with other managers' fields: return false and
// set out->conflicts, each like `conflict with "kubectl-edit" using v1: .spec.replicas`
// (unless force: then the fields move to `manager`). live may be null (create).
// The entry's "time" is left for the caller to set (this library has no clock).
struct ApplyResult {
  json::Value object;
  std::vector<std::string> conflicts;
};
bool server_side_apply(const std::string& kind_key, const json::Value& live, const json::Value& applied,
                       const std::string& manager, bool force, ApplyResult* out, std::string* err);

// managedFields bookkeeping for every non-apply write (create, update, JSON/merge/strategic
// patch), so that a later apply conflicts with, say, `kubectl edit`: `manager` takes every
// field whose value `obj` sets or changes relative to `old` (nullptr on create) away from the
// other managers, fields `obj` no longer has leave every manager, and entries left empty go.
// Rewrites obj->metadata.managedFields (operation "Update", fieldsV1; the entry's "time" is
// the caller's, as above). When obj carries no managedFields, old's are the starting point.
// subresource "status" tracks only .status; the main resource everything but .status.
// False (and *err) only for malformed managedFields.
bool record_update(const std::string& kind_key, const json::Value* old, const std::string& manager,
                   const std::string& subresource, json::Value* obj, std::string* err);

// fieldsV1 set of an object (for Update operations' managedFields too). Identity and
// server-owned fields (apiVersion, kind, metadata.name/namespace/uid/resourceVersion/
// generation/creationTimestamp/managedFields/selfLink/deletionTimestamp) are left out, as
// Kubernetes does.
json::Value fields_v1(const std::string& kind_key, const json::Value& obj);

}  // namespace patch
}  // namespace k32
