// Protobuf field numbers of the served kinds, generated with the schema table (schema_table.h)
// into k32_schema_table.cpp: kProtoFields[i] belongs to kFields[i], kNodeCodecs[i] to kNodes[i].
// The API server decodes protobuf request bodies of every served kind with them.
#pragma once
#include <cstdint>

namespace k32 {
namespace schema {

struct ProtoField {
  uint16_t number;  // 0: the field has no protobuf form (apiVersion/kind live in the envelope)
  uint16_t via;     // 0, or the number of the inlined message that carries it (Volume's VolumeSource)
  bool omit_zero;   // Go's JSON omits the zero value (non-pointer, omitempty): drop "", 0, false
};

// How a node's value travels when protobuf does not carry it as the schema type says.
enum Codec : uint8_t { kPlain = 0, kTime = 1, kMicroTime = 2, kBytes = 3 };

extern const ProtoField kProtoFields[];
extern const uint8_t kNodeCodecs[];

}  // namespace schema
}  // namespace k32
