#include "core/api/tables.h"

#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

json::Value partial_metadata(const json::Value& o) {
  json::Value p = json::Value::object();
  p.set("kind", "PartialObjectMetadata");
  p.set("apiVersion", "meta.k8s.io/v1");
  p.set("metadata", o["metadata"]);
  return p;
}

}  // namespace

json::Value name_cell(const json::Value& o, int64_t) { return json::Value(o.path_str({"metadata", "name"})); }

json::Value age_cell(const json::Value& o, int64_t now) {
  int64_t t = text::parse_rfc3339(o.path_str({"metadata", "creationTimestamp"}));
  return json::Value(t < 0 ? std::string("<unknown>") : text::human_duration(now - t));
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

json::Value make_table(const ResourceInfo& r, const std::vector<json::Value>& objs, IncludeObject include, int64_t now_s,
                       const std::string& resource_version, bool with_columns) {
  const TableColumn* cols = r.strategy->columns;
  const TableColumn* cols_end = cols + r.strategy->n_columns;
  json::Value t = json::Value::object();
  t.set("kind", "Table");
  t.set("apiVersion", "meta.k8s.io/v1");
  json::Value md = json::Value::object();
  if (!resource_version.empty()) md.set("resourceVersion", resource_version);
  t.set("metadata", md);
  json::Value defs = json::Value::array();
  if (with_columns) {
    for (const TableColumn* c = cols; c != cols_end; ++c) {
      json::Value d = json::Value::object();
      d.set("name", c->name);
      d.set("type", c->type);
      d.set("format", c->format);
      d.set("description", "");
      d.set("priority", c->priority);
      defs.push(std::move(d));
    }
  }
  t.set("columnDefinitions", defs);
  json::Value rows = json::Value::array();
  for (const auto& o : objs) {
    json::Value row = json::Value::object();
    json::Value cells = json::Value::array();
    for (const TableColumn* c = cols; c != cols_end; ++c) cells.push(c->cell(o, now_s));
    row.set("cells", cells);
    if (include == IncludeObject::Metadata) row.set("object", partial_metadata(o));
    else if (include == IncludeObject::Object) row.set("object", o);
    rows.push(std::move(row));
  }
  t.set("rows", rows);
  return t;
}

}  // namespace api
}  // namespace k32
