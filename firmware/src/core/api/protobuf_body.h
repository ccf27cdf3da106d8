// Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown), which kubectl's typed
// clients send (`kubectl create service|configmap|secret|namespace`, `kubectl expose`, ...).
// Decoded into the JSON model for every served kind, driven by the generated schema table
// and its protobuf field numbers (core/openapi/proto_table.h), so the result is the JSON
// kubectl would have sent and goes through the same create/update path.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace api {

// False with *err (which field or kind) when the body is not a Kubernetes protobuf envelope,
// does not parse against the kind's schema or holds a string that is not UTF-8 (400), or
// names a content encoding or kind this server does not serve (415: *unsupported true).
bool decode_protobuf_object(const std::string& body, json::Value* out, std::string* err, bool* unsupported = nullptr);

}  // namespace api
}  // namespace k32
