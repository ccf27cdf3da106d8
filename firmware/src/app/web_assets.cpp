#include "app/web_assets.h"

#include <cctype>
#include <cstring>

namespace k32 {
namespace app {

const WebAsset* web_asset_find(const std::string& bundle, const std::string& path, const char* suffix) {
  const size_t sn = std::strlen(suffix);
  for (uint32_t i = 0; i < kWebAssetCount; ++i) {
    const char* ap = kWebAssets[i].path;
    if (std::strlen(ap) != path.size() + sn || bundle != kWebAssets[i].bundle) continue;
    if (std::memcmp(ap, path.data(), path.size()) == 0 && std::memcmp(ap + path.size(), suffix, sn) == 0) return &kWebAssets[i];
  }
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
      {".html", "text/html; charset=utf-8"},
      {".htm", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
      {".wasm", "application/wasm"},
      {".woff2", "font/woff2"},
      {".woff", "font/woff"},
      {".map", "application/json"},
  };
  // Compared in place, case-insensitively (no lowered copy of the path per response).
  auto iends = [&](size_t n, const char* ext) {
    size_t m = std::strlen(ext);
    if (m > n) return false;
    for (size_t i = 0; i < m; ++i)
      if (std::tolower(static_cast<unsigned char>(path[n - m + i])) != ext[i]) return false;
    return true;
  };
  size_t n = path.size();
  if (iends(n, ".gz")) n -= 3;
  for (const auto& t : kTypes)
    if (iends(n, t.ext)) return t.type;
  return "application/octet-stream";
}

}  // namespace app
}  // namespace k32
