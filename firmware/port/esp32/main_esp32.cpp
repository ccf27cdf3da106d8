// The board's entry point: NVS and the data partition, the console, Wi-Fi, then the same
// node wiring the simulator runs (app/node_app). What the simulator takes as flags comes from
// the board: the role from the settings (default: control plane on boards with PSRAM, worker
// otherwise), the Wi-Fi credentials and the token from NVS (K32_CMD:WIFI / K32_CMD:TOKEN).
#include <cstdio>
#include <string>

#include "app/node_app.h"
#include "core/json/json.h"
#include "esp32_internal.h"
#include "esp_mac.h"
#include "k32_board.h"
#include "port.h"

namespace {

using namespace k32;

// Workers dial the control plane's API on the cluster access point.
constexpr uint16_t kApiPort = 6443;
constexpr uint32_t kJoinWaitMs = 30000;

void fail_forever(const char* what, const char* err) {
  char line[256];
  std::snprintf(line, sizeof line, "[NODE] %s: %s", what, err);
  // Keep the console readable and the reason repeated (a serial monitor may attach late).
  for (;;) {
    port::log_line(line);
    port::sleep_ms(10000);
  }
}

json::Value read_settings() {
  char* data = nullptr;
  size_t len = 0;
  json::Value v = json::Value::object();
  if (port::file_read(port::esp32::kSettingsFile, &data, &len)) {
    json::ParseError pe;
    if (!json::parse(data, len, &v, &pe) || !v.is_object()) v = json::Value::object();
    port::mem_free(data);
  }
  return v;
}

std::string default_name() {
  uint8_t mac[6] = {0};
  esp_read_mac(mac, ESP_MAC_WIFI_STA);
  char name[32];
  std::snprintf(name, sizeof name, "kube32-%s-%02x%02x%02x", K32_BOARD_NAME, mac[3], mac[4], mac[5]);
  return name;
}

void node_main() {
  char err[160] = {0};
  if (!port::esp32::settings_nvs_init(err, sizeof err)) fail_forever("settings", err);
  if (!port::esp32::storage_mount(err, sizeof err)) fail_forever("storage", err);
  char digest[65];
  if (!port::esp32::bundle_check(digest, sizeof digest))
    fail_forever("bundle", "the flashed bundle does not match its manifest; flash it again (k32 flash)");
  if (!port::esp32::console_init()) port::log_line("[NODE] console driver failed; commands are not read");

  json::Value s = read_settings();
  node::NodeConfig cfg;
  const std::string role = s["role"].as_string(K32_HAS_PSRAM ? "control-plane" : "worker");
  cfg.role = role == "worker" ? node::Role::Worker : node::Role::ControlPlane;
  cfg.name = s["name"].as_string(default_name());
  cfg.board = K32_BOARD_NAME;
  cfg.state_dir = port::esp32::kStateDir;
  cfg.sd_dir = port::esp32::kSdDir;
  cfg.bundle_digest = digest;
  cfg.api_port = kApiPort;
  cfg.console_port = 0;  // the console is stdin/stdout: the UART

  const std::string ssid = s["wifi"]["ssid"].as_string();
  const std::string pass = s["wifi"]["password"].as_string();
  port::esp32::NetConfig net{};
  net.control_plane = cfg.role == node::Role::ControlPlane;
  // A worker's only network is the cluster's; the control plane's station is the uplink.
  net.sta_ssid = net.control_plane ? ssid.c_str() : K32_CLUSTER_AP_SSID;
  net.sta_password = net.control_plane ? pass.c_str() : "";
  char ip[16] = {0};
  if (!port::esp32::net_start(net, kJoinWaitMs, ip, sizeof ip, err, sizeof err)) fail_forever("Wi-Fi", err);
  cfg.bind_ip = ip;
  if (cfg.role == node::Role::Worker) {
    char url[64];
    std::snprintf(url, sizeof url, "http://%s:%u", K32_CLUSTER_AP_IP, static_cast<unsigned>(kApiPort));
    cfg.control_plane_url = url;
  }
  // run_node blocks for the node's lifetime; it returns only when start-up failed.
  int rc = app::run_node(cfg);
  std::snprintf(err, sizeof err, "node start-up failed (exit %d), see the lines above", rc);
  fail_forever("node", err);
}

}  // namespace

extern "C" void app_main(void) { node_main(); }
