// The roots a board's TLS client trusts: ESP-IDF's certificate bundle (the common CA subset
// compiled into the firmware) plus the optional extra PEM file (for example a private
// egress CA).
#include <string>

#include "esp_crt_bundle.h"
#include "tls_mbedtls/tls_io.h"
#include "tls_mbedtls/tls_trust.h"
#include "port.h"

// ESP-IDF's bundle check, which esp_crt_bundle_attach installs as the verify callback; it is
// exported but not declared in esp_crt_bundle.h. The shared client's callback calls it first.
extern "C" int esp_crt_verify_callback(void* buf, mbedtls_x509_crt* crt, int depth, uint32_t* flags);

namespace k32 {
namespace port {

namespace {
// Replaced only while no handshake runs: tls_client_trust is called at start-up, before any
// pod can call out.
mbedtls_x509_crt g_extra;
bool g_extra_loaded = false;
}  // namespace

bool tls_client_trust(const char* extra_pem_path, char* err, size_t errcap) {
  if (g_extra_loaded) mbedtls_x509_crt_free(&g_extra);
  mbedtls_x509_crt_init(&g_extra);
  g_extra_loaded = false;
  if (!extra_pem_path || !*extra_pem_path) return true;
  int rc = mbedtls_x509_crt_parse_file(&g_extra, extra_pem_path);
  if (rc != 0) {
    std::string what = std::string("extra CA ") + extra_pem_path;
    tlsio::describe(err, errcap, what.c_str(), rc < 0 ? rc : 0);
    mbedtls_x509_crt_free(&g_extra);
    return false;
  }
  g_extra_loaded = true;
  return true;
}

namespace tlstrust {

int attach(mbedtls_ssl_config* conf) {
  if (esp_crt_bundle_attach(conf) != ESP_OK) return MBEDTLS_ERR_SSL_BAD_INPUT_DATA;
  // The extra roots, when given, are the chain mbedTLS tries first; the bundle's callback
  // (verify_first) still accepts anything its CAs signed.
  if (g_extra_loaded) mbedtls_ssl_conf_ca_chain(conf, &g_extra, nullptr);
  return 0;
}

int verify_first(mbedtls_x509_crt* crt, int depth, uint32_t* flags) {
  return esp_crt_verify_callback(nullptr, crt, depth, flags);
}

}  // namespace tlstrust
}  // namespace port
}  // namespace k32
