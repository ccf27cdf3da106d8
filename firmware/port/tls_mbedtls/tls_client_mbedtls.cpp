// The TLS client of the control plane's https:// calls with mbedTLS: TLS 1.2 only (a server
// that accepts only TLS 1.3 fails the handshake), the chain checked against the roots the
// port trusts (tls_trust.h), the name checked against the host: DNS names by mbedTLS, IPv4
// addresses against the certificate's iPAddress SAN entries here.
#if defined(K32_PORT_HAS_TLS)
#include <mbedtls/asn1.h>
#include <mbedtls/oid.h>

#include <cstdio>
#include <cstring>

#include "mbedtls_compat.h"
#include "port.h"
#include "tls_io.h"
#include "tls_trust.h"

namespace k32 {
namespace port {

namespace {

#if MBEDTLS_VERSION_MAJOR >= 3
bool cert_names_ipv4(const mbedtls_x509_crt* crt, const unsigned char want[4]) {
  for (const mbedtls_x509_sequence* s = &crt->subject_alt_names; s && s->buf.p; s = s->next) {
    if (s->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS) && s->buf.len == 4 &&
        std::memcmp(s->buf.p, want, 4) == 0)
      return true;
  }
  return false;
}
#else
// mbedTLS 2.28 keeps DNS names only; iPAddress SAN entries are found in the raw extensions
// (SEQUENCE of Extension { OID, [critical], OCTET STRING { GeneralNames } }).
bool cert_names_ipv4(const mbedtls_x509_crt* crt, const unsigned char want[4]) {
  unsigned char* p = crt->v3_ext.p;
  if (!p) return false;
  const unsigned char* end = p + crt->v3_ext.len;
  size_t len;
  // v3_ext is the [3] EXPLICIT wrapper's content or the SEQUENCE itself depending on the
  // parser; accept both.
  if (*p == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 3)) {
    if (mbedtls_asn1_get_tag(&p, end, &len, *p) != 0) return false;
  }
  if (mbedtls_asn1_get_tag(&p, end, &len, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE) != 0) return false;
  const unsigned char* exts_end = p + len;
  while (p < exts_end) {
    if (mbedtls_asn1_get_tag(&p, exts_end, &len, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE) != 0) return false;
    const unsigned char* ext_end = p + len;
    mbedtls_x509_buf oid;
    if (mbedtls_asn1_get_tag(&p, ext_end, &oid.len, MBEDTLS_ASN1_OID) != 0) return false;
    oid.p = p;
    p += oid.len;
    int critical = 0;
    mbedtls_asn1_get_bool(&p, ext_end, &critical);
    if (mbedtls_asn1_get_tag(&p, ext_end, &len, MBEDTLS_ASN1_OCTET_STRING) != 0) return false;
    if (MBEDTLS_OID_CMP(MBEDTLS_OID_SUBJECT_ALT_NAME, &oid) == 0) {
      unsigned char* q = p;
      const unsigned char* q_end = p + len;
      size_t names_len;
      if (mbedtls_asn1_get_tag(&q, q_end, &names_len, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE) != 0) return false;
      while (q < q_end) {
        unsigned char tag = *q++;
        size_t n;
        if (mbedtls_asn1_get_len(&q, q_end, &n) != 0) return false;
        if (tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7) && n == 4 && std::memcmp(q, want, 4) == 0) return true;
        q += n;
      }
    }
    p = const_cast<unsigned char*>(ext_end);
  }
  return false;
}
#endif

struct VerifyCtx {
  bool ip_host = false;
  unsigned char ip[4] = {0, 0, 0, 0};
};

// Runs after the port's own check: dates count only once the clock is set (SNTP on boards),
// and an IPv4 host must be named by an iPAddress entry.
int verify_cb(void* ctx, mbedtls_x509_crt* crt, int depth, uint32_t* flags) {
  int rc = tlstrust::verify_first(crt, depth, flags);
  if (rc != 0) return rc;
  if (!wall_clock_set()) *flags &= ~static_cast<uint32_t>(MBEDTLS_X509_BADCERT_EXPIRED | MBEDTLS_X509_BADCERT_FUTURE);
  VerifyCtx* v = static_cast<VerifyCtx*>(ctx);
  if (depth == 0 && v && v->ip_host && !cert_names_ipv4(crt, v->ip)) *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
  return 0;
}

}  // namespace

struct TlsClient {
  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  tlsio::Bio bio;
  VerifyCtx vctx;
};

TlsClient* tls_client_connect(Socket s, const char* host, uint32_t timeout_ms, TlsFail* fail, char* reason, size_t reason_cap) {
  TlsClient* t = new TlsClient();
  mbedtls_ssl_config_init(&t->conf);
  mbedtls_ssl_init(&t->ssl);
  t->bio = tlsio::Bio{s, monotonic_ms() + timeout_ms};
  t->vctx.ip_host = tlsio::parse_ipv4(host, t->vctx.ip);
  *fail = TlsFail::Handshake;
  int rc = mbedtls_ssl_config_defaults(&t->conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT);
  if (rc == 0) {
    mbedtls_compat::conf_min_tls12(&t->conf);
    mbedtls_compat::conf_max_tls12(&t->conf);
    mbedtls_ssl_conf_authmode(&t->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_rng(&t->conf, tlsio::rng, nullptr);
    rc = tlstrust::attach(&t->conf);
  }
  if (rc == 0) {
    mbedtls_ssl_conf_verify(&t->conf, verify_cb, &t->vctx);
    rc = mbedtls_ssl_setup(&t->ssl, &t->conf);
  }
  // SNI and the name check for DNS names; IPv4 hosts send no SNI (RFC 6066) and are
  // matched by verify_cb.
  if (rc == 0) rc = mbedtls_ssl_set_hostname(&t->ssl, t->vctx.ip_host ? nullptr : host);
  if (rc != 0) {
    tlsio::describe(reason, reason_cap, "TLS setup failed", rc);
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
    // One line: the first reason mbedTLS gives, without its trailing newline.
    char info[256] = {0};
    mbedtls_x509_crt_verify_info(info, sizeof info, "", flags);
    char* nl = std::strchr(info, '\n');
    if (nl) *nl = '\0';
    if (reason && reason_cap) std::snprintf(reason, reason_cap, "%s", info);
  } else if (rc == MBEDTLS_ERR_SSL_TIMEOUT) {
    *fail = TlsFail::Timeout;
    tlsio::describe(reason, reason_cap, "handshake timed out", 0);
  } else {
    tlsio::describe(reason, reason_cap, "handshake failed", rc);
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
#endif
