// The schema of the served kinds as a flat table, generated at build time by
// `python -m k32.apigen` (host_tools/k32/apigen/schema_table.py) into k32_schema_table.cpp.
// Node 0 is "anything": untyped objects (FieldsV1, RawExtension) and unknown schemas.
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace schema {

enum class Type : uint8_t { Any, Object, Map, Array, String, Integer, Number, Boolean, IntOrString, Quantity };
// x-kubernetes-list-type; None = not declared (strategic merge replaces such lists,
// server-side apply treats them as atomic).
enum class ListType : uint8_t { None, Atomic, Set, Map };
// x-kubernetes-patch-strategy bits.
enum : uint8_t { kMerge = 1, kRetainKeys = 2, kReplace = 4 };

struct Field {
  const char* name;
  uint16_t node;
  const char* default_json;  // the field's default as JSON text, or nullptr
};

struct Node {
  Type type;
  ListType list_type;    // Array only
  uint8_t strategy;      // kMerge | kRetainKeys | kReplace
  uint8_t n_map_keys;    // Array with list-type map
  uint16_t elem;         // Array / Map: element node
  uint16_t first_field;  // Object: fields [first_field, first_field + n_fields), sorted by name
  uint16_t n_fields;
  const char* merge_key;        // x-kubernetes-patch-merge-key, or nullptr
  const char* const* map_keys;  // x-kubernetes-list-map-keys
};

struct KindRoot {
  const char* key;  // "v1/Pod", "networking.k8s.io/v1/Ingress"
  uint16_t node;
};

extern const Field kFields[];
extern const Node kNodes[];
extern const uint16_t kNodeCount;
extern const KindRoot kKinds[];
extern const uint16_t kKindCount;

}  // namespace schema
}  // namespace k32
