#include "app/web_assets.h"

#include <cstring>

#include "core/util/text.h"

namespace k32 {
namespace app {

const WebAsset* web_asset_find(const std::string& bundle, const std::string& path) {
  for (uint32_t i = 0; i < kWebAssetCount; ++i)
    if (bundle == kWebAssets[i].bundle && path == kWebAssets[i].path) return &kWebAssets[i];
  return nullptr;
}

bool web_bundle_exists(const std::string& bundle) {
  for (uint32_t i = 0; i < kWebAssetCount; ++i)
    if (bundle == kWebAssets[i].bundle) return true;
  return false;
}

const char* content_type_for(const std::string& path) {
  struct Type {
    const char* ext;
    const char* type;
  };
  static const Type kTypes[] = {
      {".html", "text/html; charset=utf-8"}, {".htm", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"}, {".json", "application/json"}, {".svg", "image/svg+xml"},
      {".png", "image/png"}, {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"}, {".gif", "image/gif"},
      {".ico", "image/x-icon"}, {".txt", "text/plain; charset=utf-8"}, {".wasm", "application/wasm"},
      {".woff2", "font/woff2"}, {".woff", "font/woff"}, {".map", "application/json"},
  };
  std::string p = text::lower(path);
  if (text::ends_with(p, ".gz")) p.resize(p.size() - 3);
  for (const auto& t : kTypes)
    if (text::ends_with(p, t.ext)) return t.type;
  return "application/octet-stream";
}

}  // namespace app
}  // namespace k32
