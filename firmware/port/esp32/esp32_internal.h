// What the ESP-IDF port's files share with each other (not part of port.h: nothing above
// port/ sees these).
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace port {
namespace esp32 {

// ---- storage: the LittleFS data partition (storage_esp32.cpp) ----
// Where the data partition is mounted; the state store and wasm://sd/ live below it.
constexpr const char* kDataMount = "/data";
constexpr const char* kStateDir = "/data/state";
constexpr const char* kSdDir = "/data/sd";
// Mounts the board's data partition (formatting it only when it holds no file system).
bool storage_mount(char* err, size_t errcap);
// Checks the flashed bundle against its recorded digest and prints it; the digest (hex) or
// an empty string when no bundle was flashed. False when the bundle is damaged.
bool bundle_check(char* digest_hex, size_t cap);

// ---- settings in NVS (settings_nvs_esp32.cpp) ----
constexpr const char* kSettingsFile = "/data/state/settings.json";
bool is_settings_path(const char* path);
bool settings_nvs_init(char* err, size_t errcap);
bool settings_read(char** data, size_t* len);       // *data freed with mem_free
bool settings_write(const void* data, size_t len);  // nullptr: erase

// ---- network (net_esp32.cpp) ----
struct NetConfig {
  bool control_plane;
  const char* sta_ssid;  // control plane: the uplink (may be empty); worker: the cluster AP
  const char* sta_password;
};
// Starts Wi-Fi: the cluster access point (control plane) and/or the station. Waits up to
// wait_ms for the station's address (workers need it before they start).
bool net_start(const NetConfig& cfg, uint32_t wait_ms, char* ip, size_t ipcap, char* err, size_t errcap);

// ---- console (console_esp32.cpp) ----
// Puts stdin/stdout on the console UART (or USB Serial/JTAG) with a blocking driver, so the
// portable console reads whole lines from stdin as it does in the simulator.
bool console_init();

}  // namespace esp32
}  // namespace port
}  // namespace k32
