// The node's console-set settings (token, Wi-Fi credentials) in NVS: NVS survives re-flashing
// the app and the data partition and wear-levels small, rarely written values. The portable
// Settings class reads and writes one JSON file; files_esp32.cpp routes that one path here.
#include <cstring>

#include "nvs.h"
#include "nvs_flash.h"
#include "port.h"
#include "esp32_internal.h"

namespace k32 {
namespace port {
namespace esp32 {

namespace {
constexpr const char* kNamespace = "kube32";
constexpr const char* kKey = "settings";
}  // namespace

bool is_settings_path(const char* path) { return path && std::strcmp(path, kSettingsFile) == 0; }

bool settings_nvs_init(char* err, size_t errcap) {
  esp_err_t e = nvs_flash_init();
  if (e == ESP_ERR_NVS_NO_FREE_PAGES || e == ESP_ERR_NVS_NEW_VERSION_FOUND) {
    // A partition written by another layout cannot be read: start it afresh (the settings
    // are then re-sent over the console), rather than fail every boot.
    if (nvs_flash_erase() == ESP_OK) e = nvs_flash_init();
  }
  if (e != ESP_OK) {
    snprintf(err, errcap, "NVS: %s", esp_err_to_name(e));
    return false;
  }
  return true;
}

bool settings_read(char** data, size_t* len) {
  nvs_handle_t h;
  if (nvs_open(kNamespace, NVS_READONLY, &h) != ESP_OK) return false;
  size_t size = 0;
  bool ok = nvs_get_blob(h, kKey, nullptr, &size) == ESP_OK;
  char* buf = ok ? static_cast<char*>(mem_alloc(size + 1, Region::Internal)) : nullptr;
  ok = buf && nvs_get_blob(h, kKey, buf, &size) == ESP_OK;
  nvs_close(h);
  if (!ok) {
    mem_free(buf);
    return false;
  }
  buf[size] = 0;
  *data = buf;
  *len = size;
  return true;
}

bool settings_write(const void* data, size_t len) {
  nvs_handle_t h;
  if (nvs_open(kNamespace, NVS_READWRITE, &h) != ESP_OK) return false;
  esp_err_t e = data ? nvs_set_blob(h, kKey, data, len) : nvs_erase_key(h, kKey);
  if (e == ESP_ERR_NVS_NOT_FOUND && !data) e = ESP_OK;
  // Acknowledged only once committed to flash.
  if (e == ESP_OK) e = nvs_commit(h);
  nvs_close(h);
  return e == ESP_OK;
}

}  // namespace esp32
}  // namespace port
}  // namespace k32
