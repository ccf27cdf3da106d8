// Files of images/web/<bundle>/ embedded at build time (generated table).
#pragma once
#include <cstdint>
#include <string>

namespace k32 {
namespace app {

struct WebAsset {
  const char* bundle;
  const char* path;  // relative to the bundle root, e.g. "index.html", "js/app.js.gz"
  const uint8_t* data;
  uint32_t len;
  const char* etag;  // quoted content hash
};

extern const WebAsset kWebAssets[];
extern const uint32_t kWebAssetCount;

// `path` + `suffix` (".gz" for the compressed copy), compared without building the name.
const WebAsset* web_asset_find(const std::string& bundle, const std::string& path, const char* suffix = "");
bool web_bundle_exists(const std::string& bundle);
const char* content_type_for(const std::string& path);

}  // namespace app
}  // namespace k32
