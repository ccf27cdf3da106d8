// The roots the simulator's TLS client trusts: the operating system's bundle (Debian's path)
// plus the optional extra PEM file. Loaded on the first handshake or by tls_client_trust.
#if defined(K32_PORT_HAS_TLS)
#include <cstdio>
#include <mutex>
#include <string>

#include "tls_mbedtls/tls_io.h"
#include "tls_mbedtls/tls_trust.h"
#include "port.h"

namespace k32 {
namespace port {

namespace {

constexpr const char* kOsRoots = "/etc/ssl/certs/ca-certificates.crt";

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

}  // namespace

bool tls_client_trust(const char* extra_pem_path, char* err, size_t errcap) {
  Trust& t = trust();
  std::lock_guard<std::mutex> lk(t.mu);
  mbedtls_x509_crt_free(&t.roots);
  mbedtls_x509_crt_init(&t.roots);
  // The OS bundle holds a few certificates mbedTLS cannot read; the rest are kept (rc > 0).
  int rc = mbedtls_x509_crt_parse_file(&t.roots, kOsRoots);
  if (rc < 0) t.roots.version = 0;
  t.ready = true;
  if (!extra_pem_path || !*extra_pem_path) return true;
  rc = mbedtls_x509_crt_parse_file(&t.roots, extra_pem_path);
  if (rc == 0) return true;
  std::string what = std::string("egress CA ") + extra_pem_path;
  tlsio::describe(err, errcap, what.c_str(), rc < 0 ? rc : 0);
  if (rc > 0 && err && errcap) std::snprintf(err, errcap, "egress CA %s: %d certificates unreadable", extra_pem_path, rc);
  return false;
}

namespace tlstrust {

int attach(mbedtls_ssl_config* conf) {
  Trust& t = trust();
  bool ready;
  {
    std::lock_guard<std::mutex> lk(t.mu);
    ready = t.ready;
  }
  if (!ready) tls_client_trust(nullptr, nullptr, 0);
  mbedtls_ssl_conf_ca_chain(conf, &t.roots, nullptr);
  return 0;
}

int verify_first(mbedtls_x509_crt*, int, uint32_t*) { return 0; }

}  // namespace tlstrust
}  // namespace port
}  // namespace k32
#endif
