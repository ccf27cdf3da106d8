// Lookups in the generated schema table, and strict field validation of objects.
#pragma once
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/openapi/schema_table.h"

namespace k32 {
namespace schema {

// The root node of a served kind ("v1/Pod", "networking.k8s.io/v1/Ingress"), or nullptr.
const Node* root(const std::string& kind_key);
// The node of an object's field, or nullptr when `node` is not an object or has no such field.
// A null or Any node yields the Any node (everything below an untyped value is allowed).
const Node* field(const Node* node, const std::string& name);
// The default of an object's field as JSON text ("\"TCP\""), or nullptr.
const char* field_default(const Node* node, const std::string& name);
// Element node of an Array or Map (the Any node for anything else).
const Node* elem(const Node* node);
const Node* any();

// Validates field names/types against the schema. Unknown fields: appended to *unknown as
// JSON paths like ".spec.foo" (the API server turns them into a Strict error or warnings).
// Returns false (and sets *type_error, e.g. `.spec.replicas: expected integer, got string`)
// at the first value of the wrong type, or when kind_key is not a served kind.
bool check_fields(const std::string& kind_key, const json::Value& obj, std::vector<std::string>* unknown,
                  std::string* type_error);

}  // namespace schema
}  // namespace k32
