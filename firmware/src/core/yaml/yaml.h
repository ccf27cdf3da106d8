// YAML request bodies (application/yaml), as kube-apiserver accepts them: the block and
// flow styles Kubernetes manifests use, converted to the JSON model. Anchors, aliases,
// tags and multi-document bodies are refused with a clear error rather than guessed at.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace yaml {

// Parses one YAML document; false with *err ("line 3: ...") when it is not valid or uses
// a feature outside the supported subset.
bool to_json(const std::string& text, json::Value* out, std::string* err);

}  // namespace yaml
}  // namespace k32
