#include "core/api/resources.h"

#include <cstring>

#include "core/api/kinds/kind_strategy.h"

namespace k32 {
namespace api {

namespace {

// Constant-initialized: the table is read-only data (flash on a board), built by nobody.
const ResourceInfo kResources[] = {
#define K32_KIND(group, version, resource, kind, singular, namespaced, read_only, short_names, categories, subresources, \
                 strategy) \
  {group, version, resource, kind, singular, namespaced, read_only, short_names, categories, subresources, &strategy},
#include "core/api/kinds/kinds.def"
#undef K32_KIND
};

}  // namespace

std::string ResourceInfo::store_id() const { return group[0] ? std::string(group) + "/" + resource : std::string(resource); }
std::string ResourceInfo::group_version() const { return group[0] ? std::string(group) + "/" + version : std::string(version); }
std::string ResourceInfo::kind_key() const { return group_version() + "/" + kind; }

bool ResourceInfo::has_subresource(const char* sub) const {
  size_t n = std::strlen(sub);
  for (const char* p = subresources; *p;) {
    const char* comma = std::strchr(p, ',');
    size_t len = comma ? static_cast<size_t>(comma - p) : std::strlen(p);
    if (len == n && std::strncmp(p, sub, n) == 0) return true;
    if (!comma) break;
    p = comma + 1;
  }
  return false;
}

ResourceTable all_resources() { return {kResources, kResources + sizeof kResources / sizeof kResources[0]}; }

const ResourceInfo* find_resource(const std::string& group, const std::string& version, const std::string& resource) {
  for (const auto& r : all_resources())
    if (group == r.group && version == r.version && resource == r.resource) return &r;
  return nullptr;
}

const ResourceInfo* find_by_kind(const std::string& api_version, const std::string& kind) {
  for (const auto& r : all_resources())
    if (api_version == r.group_version() && kind == r.kind) return &r;
  return nullptr;
}

}  // namespace api
}  // namespace k32
