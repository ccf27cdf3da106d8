// A set of field paths in the structured-merge-diff "fieldsV1" shape, used by
// server-side apply to track which manager owns which fields.
// Path elements are the fieldsV1 keys: "f:<name>", "k:<json of key fields>", "v:<json value>".
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/openapi/schema.h"

namespace k32 {
namespace patch {

struct FieldSet {
  bool member = false;  // this path itself is in the set ("." or a leaf "{}")
  std::map<std::string, FieldSet> children;

  bool empty() const;
  // Every member path, each as its list of elements.
  void members(std::vector<std::vector<std::string>>* out, std::vector<std::string>* prefix) const;
  bool contains(const std::vector<std::string>& path) const;
  // True when the path or anything below it is a member.
  bool touches(const std::vector<std::string>& path) const;
  void remove(const std::vector<std::string>& path);
  void insert(const std::vector<std::string>& path);

  json::Value to_json() const;
  // Parses a fieldsV1 object; false on a malformed one.
  static bool from_json(const json::Value& v, FieldSet* out, int depth = 0);
};

// Lists whose elements are identified by key fields (list-type map, or a patch merge key).
bool keyed_list(const schema::Node* n);
// Lists that are sets of values (list-type set, or merge strategy without a key).
bool set_list(const schema::Node* n);
// The fields an object sets, per the schema (nullptr node: untyped, a leaf).
void collect_fields(const json::Value& v, const schema::Node* n, FieldSet* out);
// The "k:" path element of a list element of a keyed list; missing key fields take their
// schema default. False when the element is not an object or has none of the keys.
bool list_key_element(const json::Value& item, const schema::Node* list, std::string* out);
// Human form of a path for conflict messages: .spec.containers[name="web"].image
std::string path_string(const std::vector<std::string>& path);

}  // namespace patch
}  // namespace k32
