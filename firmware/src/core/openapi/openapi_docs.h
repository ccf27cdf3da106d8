// The table of served OpenAPI documents, generated at build time by `python -m k32.apigen`
// (host_tools/k32/apigen/embed.py) into k32_openapi_docs.cpp.
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace openapi {

struct DocEntry {
  const char* path;  // "/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1", ...
  bool protobuf;     // gnostic protobuf form (only /openapi/v2 has one)
  const uint8_t* data;
  size_t len;
  const char* content_type;
  const char* etag;  // quoted sha256 of data, usable as the ETag header value
};

extern const DocEntry kDocs[];
extern const uint16_t kDocCount;

}  // namespace openapi
}  // namespace k32
