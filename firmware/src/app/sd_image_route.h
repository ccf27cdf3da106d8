// PUT /kube32/v1/sdimages/<name> on the API server: installs a Wasm module into the node's
// wasm://sd/ store (<sd>/kube32/images/<name>/<name>.wasm), behind the API's bearer token.
// `k32 image push` uses it; pods then run it as kube32.io/sd/<name>@sha256:<hex>.
#pragma once
#include <string>

#include "core/api/api_server.h"

namespace k32 {
namespace app {

constexpr const char* kSdImagePath = "/kube32/v1/sdimages/";

// sd_dir empty: the node has no card, and the route answers so.
api::ExtraRoute make_sd_image_route(std::string sd_dir);

}  // namespace app
}  // namespace k32
