// Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown), which kubectl's typed
// clients send for `kubectl create configmap|secret|namespace`. Decoded into the JSON
// model for the kinds those generators create; any other kind gets a clear refusal.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace api {

// False with *err when the body is not a Kubernetes protobuf envelope or holds a kind
// this server does not decode from protobuf.
bool decode_protobuf_object(const std::string& body, json::Value* out, std::string* err);

}  // namespace api
}  // namespace k32
