// The OpenAPI documents the API server serves at /openapi/v2 and /openapi/v3[/<gv>],
// embedded at build time (see openapi_docs.h).
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace openapi {

struct Document {
  const uint8_t* data;
  size_t len;
  const char* content_type;
  const char* etag;  // quoted, e.g. "\"3A9E...\""
};

// path is the request path without query: "/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1", ...
// want_protobuf: the client's Accept prefers the protobuf form (only /openapi/v2 has one;
// for other paths the JSON form is returned). Returns false for an unknown path.
bool find(const char* path, bool want_protobuf, Document* out);

}  // namespace openapi
}  // namespace k32
