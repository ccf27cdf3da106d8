// meta.k8s.io/v1 Table output for `kubectl get`, with the columns of each kind's strategy
// (kinds/<kind>.cpp), as real clusters print them.
#pragma once
#include <vector>

#include "core/api/resources.h"
#include "core/json/json.h"

namespace k32 {
namespace api {

enum class IncludeObject { None, Metadata, Object };

// Builds a Table for the objects; now_s is the wall clock for AGE columns.
json::Value make_table(const ResourceInfo& r, const std::vector<json::Value>& objs, IncludeObject include, int64_t now_s,
                       const std::string& resource_version, bool with_columns = true);

}  // namespace api
}  // namespace k32
