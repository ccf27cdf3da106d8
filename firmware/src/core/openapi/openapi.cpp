#include "core/openapi/openapi.h"

#include <cstring>

#include "core/openapi/openapi_docs.h"

namespace k32 {
namespace openapi {

bool find(const char* path, bool want_protobuf, Document* out) {
  if (!path || !out) return false;
  const DocEntry* json_form = nullptr;
  for (uint16_t i = 0; i < kDocCount; ++i) {
    const DocEntry& d = kDocs[i];
    if (std::strcmp(d.path, path) != 0) continue;
    if (d.protobuf == want_protobuf) {
      json_form = &d;
      break;
    }
    if (!d.protobuf) json_form = &d;
  }
  if (!json_form) return false;
  *out = Document{json_form->data, json_form->len, json_form->content_type, json_form->etag};
  return true;
}

}  // namespace openapi
}  // namespace k32
