// The TLS client of the control plane's https:// calls, with mbedTLS 2.28 (ESP-IDF ships
// the same library). TLS 1.2 only: a server that accepts only TLS 1.3 fails the handshake.
#include <errno.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "port.h"
#include "tls_io_host.h"

#if defined(K32_PORT_HAS_TLS)
#include <mbedtls/asn1.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/oid.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#endif

namespace k32 {
namespace port {

#if defined(K32_PORT_HAS_TLS)

namespace {

// The simulator trusts the operating system's roots (Debian's bundle path).
constexpr const char* kOsRoots = "/etc/ssl/certs/ca-certificates.crt";

// mbedTLS 2.28 matches DNS names only; iPAddress SAN entries are found in the raw
// extensions here (SEQUENCE of Extension { OID, [critical], OCTET STRING { GeneralNames } }).
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
      if (mbedtls_asn1_get_tag(&q, q_end, &names_len, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE) != 0)
        return false;
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

struct VerifyCtx {
  bool ip_host = false;
  unsigned char ip[4] = {0, 0, 0, 0};
};

// Dates count only once the clock is set (SNTP on boards); IPv4 hosts are matched here.
int verify_cb(void* ctx, mbedtls_x509_crt* crt, int depth, uint32_t* flags) {
  if (!wall_clock_set()) *flags &= ~static_cast<uint32_t>(MBEDTLS_X509_BADCERT_EXPIRED | MBEDTLS_X509_BADCERT_FUTURE);
  VerifyCtx* v = static_cast<VerifyCtx*>(ctx);
  if (depth == 0 && v && v->ip_host && !cert_names_ipv4(crt, v->ip)) *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
  return 0;
}

struct Trust {
  std::mutex mu;
  bool ready = false;
  mbedtls_x509_crt roots;
};
Trust& trust() {
  static Trust* t = [] {
    Trust* x = new Trust();
    mbedtls_x509_crt_init(&x->roots);
    return x;
  }();
  return *t;
}

void set_reason(char* out, size_t cap, const char* what, int rc) {
  if (!out || !cap) return;
  char buf[160] = {0};
  if (rc) mbedtls_strerror(rc, buf, sizeof buf);
  std::snprintf(out, cap, "%s%s%s", what, rc ? ": " : "", buf);
}

}  // namespace

struct TlsClient {
  // A DRBG per connection: sessions run in parallel and share nothing mutable.
  mbedtls_entropy_context entropy;
  mbedtls_ctr_drbg_context drbg;
  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  tlsio::Bio bio;
  VerifyCtx vctx;
};

bool tls_client_trust(const char* extra_pem_path, char* err, size_t errcap) {
  Trust& t = trust();
  std::lock_guard<std::mutex> lk(t.mu);
  mbedtls_x509_crt_free(&t.roots);
  mbedtls_x509_crt_init(&t.roots);
  // The OS bundle holds a few certificates mbedTLS cannot read; the rest are kept (rc > 0).
  int rc = mbedtls_x509_crt_parse_file(&t.roots, kOsRoots);
  if (rc < 0) t.roots.version = 0;
  if (extra_pem_path && *extra_pem_path) {
    rc = mbedtls_x509_crt_parse_file(&t.roots, extra_pem_path);
    if (rc != 0) {
      std::string what = std::string("egress CA ") + extra_pem_path;
      set_reason(err, errcap, what.c_str(), rc < 0 ? rc : 0);
      if (rc > 0 && err && errcap) std::snprintf(err, errcap, "egress CA %s: %d certificates unreadable", extra_pem_path, rc);
      t.ready = true;
      return false;
    }
  }
  t.ready = true;
  return true;
}

TlsClient* tls_client_connect(Socket s, const char* host, uint32_t timeout_ms, TlsFail* fail, char* reason,
                             size_t reason_cap) {
  Trust& tr = trust();
  {
    bool ready;
    {
      std::lock_guard<std::mutex> lk(tr.mu);
      ready = tr.ready;
    }
    if (!ready) tls_client_trust(nullptr, nullptr, 0);
  }
  TlsClient* t = new TlsClient();
  mbedtls_entropy_init(&t->entropy);
  mbedtls_ctr_drbg_init(&t->drbg);
  mbedtls_ssl_config_init(&t->conf);
  mbedtls_ssl_init(&t->ssl);
  t->bio = tlsio::Bio{s, monotonic_ms() + timeout_ms};
  t->vctx.ip_host = tlsio::parse_ipv4(host, t->vctx.ip);
  *fail = TlsFail::Handshake;
  static const char pers[] = "kube32-egress";
  int rc = mbedtls_ctr_drbg_seed(&t->drbg, mbedtls_entropy_func, &t->entropy,
                                 reinterpret_cast<const unsigned char*>(pers), sizeof pers - 1);
  if (rc == 0)
    rc = mbedtls_ssl_config_defaults(&t->conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                       MBEDTLS_SSL_PRESET_DEFAULT);
  if (rc == 0) {
    mbedtls_ssl_conf_min_version(&t->conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
    mbedtls_ssl_conf_max_version(&t->conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
    mbedtls_ssl_conf_authmode(&t->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_ca_chain(&t->conf, &tr.roots, nullptr);
    mbedtls_ssl_conf_rng(&t->conf, mbedtls_ctr_drbg_random, &t->drbg);
    mbedtls_ssl_conf_verify(&t->conf, verify_cb, &t->vctx);
    rc = mbedtls_ssl_setup(&t->ssl, &t->conf);
  }
  // SNI and the name check for DNS names; IPv4 hosts send no SNI (RFC 6066) and are
  // matched against iPAddress entries by verify_cb.
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
    // One line: the first reason mbedTLS gives, without its trailing newline.
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
  mbedtls_ctr_drbg_free(&t->drbg);
  mbedtls_entropy_free(&t->entropy);
  delete t;
}

#else  // no mbedTLS in this build (the 32-bit host build): https:// calls report K32_ERR_TLS

bool tls_client_trust(const char*, char* err, size_t errcap) {
  if (err && errcap) std::snprintf(err, errcap, "TLS is not available in this build (no mbedTLS)");
  return false;
}
TlsClient* tls_client_connect(Socket, const char*, uint32_t, TlsFail* fail, char* reason, size_t cap) {
  *fail = TlsFail::Handshake;
  if (reason && cap) std::snprintf(reason, cap, "TLS is not available in this build (no mbedTLS)");
  return nullptr;
}
int tls_client_recv(TlsClient*, void*, size_t, uint32_t) { return -EIO; }
bool tls_client_send_all(TlsClient*, const void*, size_t) { return false; }
void tls_client_free(TlsClient*) {}

#endif

}  // namespace port
}  // namespace k32
