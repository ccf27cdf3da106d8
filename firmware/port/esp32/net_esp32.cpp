// Wi-Fi on ESP-IDF. The control plane serves the cluster access point (Kube32-Cluster at
// 192.168.4.1, DHCP with two-minute leases) and, when it has credentials, joins the user's
// network as a station: while the station holds an address it forwards the access point's
// traffic there with lwIP NAPT and offers the station's name server over DHCP. A worker is
// a station of the cluster access point only.
#include <cstdio>
#include <cstring>

#include "esp_event.h"
#include "esp_heap_caps.h"
#include "esp_netif.h"
#include "esp_wifi.h"
#include "esp32_internal.h"
#include "freertos/FreeRTOS.h"
#include "freertos/event_groups.h"
#include "k32_board.h"
#include "lwip/lwip_napt.h"
#include "lwip/ip4_addr.h"
#include "port.h"

namespace k32 {
namespace port {
namespace esp32 {

namespace {

constexpr EventBits_t kGotIp = 1u << 0;
constexpr uint8_t kApMaxStations = static_cast<uint8_t>(K32_AP_MAX_STATIONS);
constexpr uint32_t kReconnectDelayMs = 2000;

EventGroupHandle_t g_events = nullptr;
esp_netif_t* g_ap = nullptr;
esp_netif_t* g_sta = nullptr;
bool g_control_plane = false;
bool g_nat_on = false;

size_t free_internal() { return heap_caps_get_free_size(MALLOC_CAP_INTERNAL); }
size_t free_psram() { return heap_caps_get_free_size(MALLOC_CAP_SPIRAM); }

void log_fmt(const char* fmt, const char* a) {
  char line[160];
  std::snprintf(line, sizeof line, fmt, a);
  log_line(line);
}

// The uplink came up: offer its name server to the access point's stations and NAT them.
void uplink_up() {
  esp_netif_dns_info_t dns{};
  esp_netif_get_dns_info(g_sta, ESP_NETIF_DNS_MAIN, &dns);
  // DHCP options can only change while the server is stopped; leases already given keep
  // running and the stations learn the name server when they renew.
  esp_netif_dhcps_stop(g_ap);
  esp_netif_set_dns_info(g_ap, ESP_NETIF_DNS_MAIN, &dns);
  uint8_t offer = 1;  // OFFER_DNS
  esp_netif_dhcps_option(g_ap, ESP_NETIF_OP_SET, ESP_NETIF_DOMAIN_NAME_SERVER, &offer, sizeof offer);
  esp_netif_dhcps_start(g_ap);
  const size_t int_before = free_internal();
  const size_t ps_before = free_psram();
  esp_netif_ip_info_t ap_ip{};
  esp_netif_get_ip_info(g_ap, &ap_ip);
  // The NAT table is allocated when NAPT is first enabled (from PSRAM where lwIP may use it).
  ip_napt_enable(ap_ip.ip.addr, 1);
  g_nat_on = true;
  char dns_txt[16];
  esp_ip4addr_ntoa(&dns.ip.u_addr.ip4, dns_txt, sizeof dns_txt);
  char line[200];
  std::snprintf(line, sizeof line,
                "[NET] uplink up: NAT from the cluster AP on, DNS %s offered (internal RAM %u bytes, PSRAM %u bytes)", dns_txt,
                static_cast<unsigned>(int_before > free_internal() ? int_before - free_internal() : 0),
                static_cast<unsigned>(ps_before > free_psram() ? ps_before - free_psram() : 0));
  log_line(line);
}

void uplink_down() {
  if (!g_nat_on) return;
  esp_netif_ip_info_t ap_ip{};
  esp_netif_get_ip_info(g_ap, &ap_ip);
  ip_napt_enable(ap_ip.ip.addr, 0);
  g_nat_on = false;
  log_line("[NET] uplink down: NAT from the cluster AP off");
}

void on_event(void*, esp_event_base_t base, int32_t id, void* data) {
  if (base == WIFI_EVENT && id == WIFI_EVENT_STA_START) {
    esp_wifi_connect();
  } else if (base == WIFI_EVENT && id == WIFI_EVENT_STA_DISCONNECTED) {
    xEventGroupClearBits(g_events, kGotIp);
    if (g_control_plane) uplink_down();
    // Keep trying: the access point may come back (or the control plane may reboot).
    vTaskDelay(pdMS_TO_TICKS(kReconnectDelayMs));
    esp_wifi_connect();
  } else if (base == IP_EVENT && id == IP_EVENT_STA_GOT_IP) {
    const ip_event_got_ip_t* e = static_cast<const ip_event_got_ip_t*>(data);
    char ip[16];
    esp_ip4addr_ntoa(&e->ip_info.ip, ip, sizeof ip);
    log_fmt("[NET] station address %s", ip);
    xEventGroupSetBits(g_events, kGotIp);
    if (g_control_plane) uplink_up();
  } else if (base == IP_EVENT && id == IP_EVENT_STA_LOST_IP) {
    xEventGroupClearBits(g_events, kGotIp);
    if (g_control_plane) uplink_down();
  }
}

bool check(esp_err_t e, const char* what, char* err, size_t errcap) {
  if (e == ESP_OK) return true;
  std::snprintf(err, errcap, "%s: %s", what, esp_err_to_name(e));
  return false;
}

}  // namespace

bool net_start(const NetConfig& cfg, uint32_t wait_ms, char* ip, size_t ipcap, char* err, size_t errcap) {
  g_control_plane = cfg.control_plane;
  g_events = xEventGroupCreate();
  if (!g_events) return check(ESP_ERR_NO_MEM, "event group", err, errcap);
  if (!check(esp_netif_init(), "esp_netif_init", err, errcap)) return false;
  if (!check(esp_event_loop_create_default(), "event loop", err, errcap)) return false;
  const bool with_sta = cfg.sta_ssid && *cfg.sta_ssid;
  if (cfg.control_plane) g_ap = esp_netif_create_default_wifi_ap();
  if (with_sta) g_sta = esp_netif_create_default_wifi_sta();
  wifi_init_config_t init = WIFI_INIT_CONFIG_DEFAULT();
  if (!check(esp_wifi_init(&init), "esp_wifi_init", err, errcap)) return false;
  esp_event_handler_register(WIFI_EVENT, ESP_EVENT_ANY_ID, on_event, nullptr);
  esp_event_handler_register(IP_EVENT, ESP_EVENT_ANY_ID, on_event, nullptr);
  wifi_mode_t mode = cfg.control_plane ? (with_sta ? WIFI_MODE_APSTA : WIFI_MODE_AP) : WIFI_MODE_STA;
  if (!check(esp_wifi_set_mode(mode), "esp_wifi_set_mode", err, errcap)) return false;
  if (cfg.control_plane) {
    // The access point's address and lease time come from boards/common.yaml.
    esp_netif_ip_info_t info{};
    info.ip.addr = ipaddr_addr(K32_CLUSTER_AP_IP);
    info.gw.addr = info.ip.addr;
    info.netmask.addr = ipaddr_addr("255.255.255.0");
    esp_netif_dhcps_stop(g_ap);
    esp_netif_set_ip_info(g_ap, &info);
    uint32_t lease_minutes = K32_AP_DHCP_LEASE_S / 60;  // ESP-IDF counts DHCP leases in minutes
    esp_netif_dhcps_option(g_ap, ESP_NETIF_OP_SET, ESP_NETIF_IP_ADDRESS_LEASE_TIME, &lease_minutes, sizeof lease_minutes);
    esp_netif_dhcps_start(g_ap);
    wifi_config_t ap{};
    std::snprintf(reinterpret_cast<char*>(ap.ap.ssid), sizeof ap.ap.ssid, "%s", K32_CLUSTER_AP_SSID);
    ap.ap.ssid_len = static_cast<uint8_t>(std::strlen(K32_CLUSTER_AP_SSID));
    ap.ap.max_connection = kApMaxStations;
    ap.ap.authmode = WIFI_AUTH_OPEN;
    ap.ap.channel = 1;
    if (!check(esp_wifi_set_config(WIFI_IF_AP, &ap), "access point config", err, errcap)) return false;
  }
  if (with_sta) {
    wifi_config_t sta{};
    std::snprintf(reinterpret_cast<char*>(sta.sta.ssid), sizeof sta.sta.ssid, "%s", cfg.sta_ssid);
    std::snprintf(reinterpret_cast<char*>(sta.sta.password), sizeof sta.sta.password, "%s",
                  cfg.sta_password ? cfg.sta_password : "");
    if (!check(esp_wifi_set_config(WIFI_IF_STA, &sta), "station config", err, errcap)) return false;
  }
  if (!check(esp_wifi_start(), "esp_wifi_start", err, errcap)) return false;
  if (cfg.control_plane) {
    std::snprintf(ip, ipcap, "%s", K32_CLUSTER_AP_IP);
    log_fmt("[NET] cluster access point %s up", K32_CLUSTER_AP_SSID);
    return true;
  }
  EventBits_t bits = xEventGroupWaitBits(g_events, kGotIp, pdFALSE, pdTRUE, pdMS_TO_TICKS(wait_ms));
  if (!(bits & kGotIp)) {
    std::snprintf(err, errcap, "no address from %s within %u ms", cfg.sta_ssid, static_cast<unsigned>(wait_ms));
    return false;
  }
  esp_netif_ip_info_t info{};
  esp_netif_get_ip_info(g_sta, &info);
  esp_ip4addr_ntoa(&info.ip, ip, static_cast<int>(ipcap));
  return true;
}

}  // namespace esp32
}  // namespace port
}  // namespace k32
