// The TLS client of the control plane's https:// calls with ESP-IDF's mbedTLS: TLS 1.2, the
// chain checked against ESP-IDF's certificate bundle (the common CA subset compiled into
// the firmware) plus an optional extra PEM file, the name checked against the host (DNS
// names by mbedTLS, IPv4 addresses against the iPAddress SAN entries here).
#include <cstdio>
#include <cstring>
#include <string>

#include "esp_crt_bundle.h"
#include "mbedtls/error.h"
#include "mbedtls/ssl.h"
#include "mbedtls/x509_crt.h"
#include "port.h"
#include "tls_io_esp32.h"

// ESP-IDF's bundle check, which esp_crt_bundle_attach installs as the verify callback; it is
// exported but not declared in esp_crt_bundle.h. verify_cb wraps it to add the node's rules.
extern "C" int esp_crt_verify_callback(void* buf, mbedtls_x509_crt* crt, int depth, uint32_t* flags);

namespace k32 {
namespace port {

namespace {

bool cert_names_ipv4(const mbedtls_x509_crt* crt, const unsigned char want[4]) {
  for (const mbedtls_x509_sequence* s = &crt->subject_alt_names; s && s->buf.p; s = s->next) {
    if (s->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS) && s->buf.len == 4 &&
        std::memcmp(s->buf.p, want, 4) == 0)
      return true;
  }
  return false;
}

struct VerifyCtx {
  bool ip_host = false;
  unsigned char ip[4] = {0, 0, 0, 0};
};

// Runs after the bundle's own callback decided trust: dates count only once SNTP set the
// clock, and an IPv4 host must be named by an iPAddress entry.
int verify_cb(void* ctx, mbedtls_x509_crt* crt, int depth, uint32_t* flags) {
  int rc = esp_crt_verify_callback(nullptr, crt, depth, flags);
  if (rc != 0) return rc;
  if (!wall_clock_set()) *flags &= ~static_cast<uint32_t>(MBEDTLS_X509_BADCERT_EXPIRED | MBEDTLS_X509_BADCERT_FUTURE);
  VerifyCtx* v = static_cast<VerifyCtx*>(ctx);
  if (depth == 0 && v && v->ip_host && !cert_names_ipv4(crt, v->ip)) *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
  return 0;
}

// The extra roots (for example a private egress CA). Replaced only while no handshake runs:
// tls_client_trust is called at start-up, before any pod can call out.
mbedtls_x509_crt g_extra;
bool g_extra_loaded = false;

void set_reason(char* out, size_t cap, const char* what, int rc) {
  if (!out || !cap) return;
  char buf[160] = {0};
  if (rc) mbedtls_strerror(rc, buf, sizeof buf);
  std::snprintf(out, cap, "%s%s%s", what, rc ? ": " : "", buf);
}

}  // namespace

struct TlsClient {
  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  tlsio::Bio bio;
  VerifyCtx vctx;
};

bool tls_client_trust(const char* extra_pem_path, char* err, size_t errcap) {
  if (g_extra_loaded) mbedtls_x509_crt_free(&g_extra);
  mbedtls_x509_crt_init(&g_extra);
  g_extra_loaded = false;
  if (!extra_pem_path || !*extra_pem_path) return true;
  int rc = mbedtls_x509_crt_parse_file(&g_extra, extra_pem_path);
  if (rc != 0) {
    std::string what = std::string("extra CA ") + extra_pem_path;
    set_reason(err, errcap, what.c_str(), rc < 0 ? rc : 0);
    mbedtls_x509_crt_free(&g_extra);
    return false;
  }
  g_extra_loaded = true;
  return true;
}

TlsClient* tls_client_connect(Socket s, const char* host, uint32_t timeout_ms, TlsFail* fail, char* reason,
                             size_t reason_cap) {
  TlsClient* t = new TlsClient();
  mbedtls_ssl_config_init(&t->conf);
  mbedtls_ssl_init(&t->ssl);
  t->bio = tlsio::Bio{s, monotonic_ms() + timeout_ms};
  t->vctx.ip_host = tlsio::parse_ipv4(host, t->vctx.ip);
  *fail = TlsFail::Handshake;
  int rc = mbedtls_ssl_config_defaults(&t->conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                       MBEDTLS_SSL_PRESET_DEFAULT);
  if (rc == 0) {
    mbedtls_ssl_conf_min_tls_version(&t->conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_max_tls_version(&t->conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_authmode(&t->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_rng(&t->conf, tlsio::hw_random, nullptr);
    rc = esp_crt_bundle_attach(&t->conf) == ESP_OK ? 0 : MBEDTLS_ERR_SSL_BAD_INPUT_DATA;
  }
  if (rc == 0) {
    // The extra roots, when given, are the chain mbedTLS tries first; the bundle's callback
    // (inside verify_cb) still accepts anything its CAs signed.
    if (g_extra_loaded) mbedtls_ssl_conf_ca_chain(&t->conf, &g_extra, nullptr);
    mbedtls_ssl_conf_verify(&t->conf, verify_cb, &t->vctx);
    rc = mbedtls_ssl_setup(&t->ssl, &t->conf);
  }
  // SNI for DNS names; IPv4 hosts send none (RFC 6066) and are matched by verify_cb.
  if (rc == 0) rc = mbedtls_ssl_set_hostname(&t->ssl, t->vctx.ip_host ? nullptr : host);
  if (rc != 0) {
    set_reason(reason, reason_cap, "TLS setup failed", rc);
    tls_client_free(t);
    return nullptr;
  }
  mbedtls_ssl_set_bio(&t->ssl, &t->bio, tlsio::bio_send, tlsio::bio_recv, nullptr);
  while ((rc = mbedtls_ssl_handshake(&t->ssl)) != 0) {
    if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) continue;
    break;
  }
  if (rc == 0) {
    *fail = TlsFail::None;
    return t;
  }
  uint32_t flags = mbedtls_ssl_get_verify_result(&t->ssl);
  if (rc == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED && flags != 0) {
    *fail = TlsFail::Cert;
    char info[256] = {0};
    mbedtls_x509_crt_verify_info(info, sizeof info, "", flags);
    char* nl = std::strchr(info, '\n');
    if (nl) *nl = '\0';
    if (reason && reason_cap) std::snprintf(reason, reason_cap, "%s", info);
  } else if (rc == MBEDTLS_ERR_SSL_TIMEOUT) {
    *fail = TlsFail::Timeout;
    set_reason(reason, reason_cap, "handshake timed out", 0);
  } else {
    set_reason(reason, reason_cap, "handshake failed", rc);
  }
  tls_client_free(t);
  return nullptr;
}

int tls_client_recv(TlsClient* t, void* buf, size_t len, uint32_t timeout_ms) {
  t->bio.deadline_ms = monotonic_ms() + timeout_ms;
  return tlsio::read_some(&t->ssl, buf, len);
}

bool tls_client_send_all(TlsClient* t, const void* buf, size_t len) { return tlsio::write_all(&t->ssl, buf, len); }

void tls_client_free(TlsClient* t) {
  if (!t) return;
  mbedtls_ssl_close_notify(&t->ssl);
  mbedtls_ssl_free(&t->ssl);
  mbedtls_ssl_config_free(&t->conf);
  delete t;
}

}  // namespace port
}  // namespace k32
