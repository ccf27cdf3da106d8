// The LittleFS data partition: mounted at /data through the VFS; holds the flashed bundle
// (/data/bundle.json and what it lists), the state store (/data/state) and the wasm://sd/
// images (/data/sd). At boot every bundle file is checked against the SHA-256 recorded for
// it (port::Sha256: the SHA accelerator on the chip) before the bundle's digest is printed, so a
// half-written flash is reported instead of served.
#include <cstdio>
#include <cstring>
#include <string>

#include "core/json/json.h"
#include "core/util/text.h"
#include "esp_littlefs.h"
#include "esp32_internal.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace port {
namespace esp32 {

namespace {

constexpr size_t kHashChunk = 1024;
constexpr size_t kManifestMax = K32_BUNDLE_MANIFEST_MAX;

bool sha256_file(const std::string& path, char hex[65]) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char* buf = static_cast<unsigned char*>(mem_alloc(kHashChunk, Region::Internal));
  if (!buf) {
    std::fclose(f);
    return false;
  }
  Sha256 h;
  size_t n;
  while ((n = std::fread(buf, 1, kHashChunk, f)) > 0) h.update(buf, n);
  unsigned char out[kSha256Bytes];
  h.finish(out);
  mem_free(buf);
  std::fclose(f);
  for (size_t i = 0; i < kSha256Bytes; ++i) std::snprintf(hex + 2 * i, 3, "%02x", out[i]);
  return true;
}

}  // namespace

bool storage_mount(char* err, size_t errcap) {
  esp_vfs_littlefs_conf_t conf = {};
  conf.base_path = kDataMount;
  conf.partition_label = K32_DATA_PARTITION_LABEL;
  // A blank partition (first boot without a flashed bundle) gets a file system; a damaged
  // one too, as the node cannot run without its state store (the bundle can be re-flashed).
  conf.format_if_mount_failed = true;
  esp_err_t e = esp_vfs_littlefs_register(&conf);
  if (e != ESP_OK) {
    std::snprintf(err, errcap, "LittleFS on partition '%s': %s", K32_DATA_PARTITION_LABEL, esp_err_to_name(e));
    return false;
  }
  return dir_ensure(kStateDir) && dir_ensure(kSdDir);
}

bool bundle_check(char* digest_hex, size_t cap) {
  digest_hex[0] = 0;
  const std::string manifest_path = std::string(kDataMount) + "/bundle.json";
  int64_t size = file_size(manifest_path.c_str());
  if (size < 0) return true;  // nothing flashed: the node runs from its embedded images
  if (size > static_cast<int64_t>(kManifestMax)) {
    log_line("[BUNDLE] /data/bundle.json is too large to be a bundle manifest");
    return false;
  }
  char* data = nullptr;
  size_t len = 0;
  if (!file_read(manifest_path.c_str(), &data, &len)) return false;
  json::Value m;
  json::ParseError pe;
  bool parsed = json::parse(data, len, &m, &pe);
  mem_free(data);
  if (!parsed || !m["artifacts"].is_array() || m["digest"].as_string().size() != 64) {
    log_line("[BUNDLE] /data/bundle.json is not a bundle manifest");
    return false;
  }
  if (m["board"].as_string() != K32_BOARD_NAME) {
    std::string line = "[BUNDLE] flashed bundle is for board " + m["board"].as_string() + ", this firmware is " + K32_BOARD_NAME;
    log_line(line.c_str());
    return false;
  }
  size_t checked = 0;
  for (const json::Value& a : m["artifacts"].items()) {
    const std::string name = a["name"].as_string();
    // Names come from the manifest: never let one leave the data partition.
    if (name.empty() || name[0] == '/' || name.find("..") != std::string::npos) return false;
    char hex[65];
    if (!sha256_file(std::string(kDataMount) + "/" + name, hex) || a["sha256"].as_string() != hex) {
      std::string line = "[BUNDLE] " + name + ": missing or its SHA-256 differs from the manifest";
      log_line(line.c_str());
      return false;
    }
    ++checked;
  }
  std::snprintf(digest_hex, cap, "%s", m["digest"].as_string().c_str());
  std::string line = "[BUNDLE] digest " + m["digest"].as_string() + " (" + text::to_string(static_cast<uint64_t>(checked)) +
                     " files verified)";
  log_line(line.c_str());
  return true;
}

}  // namespace esp32
}  // namespace port
}  // namespace k32
