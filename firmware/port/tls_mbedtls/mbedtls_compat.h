// The few places where mbedTLS 2.28 (the simulator's, from Debian) and 3.x (ESP-IDF 5's)
// differ in the calls this port makes, so the TLS and hashing code above is written once.
#pragma once
#include <mbedtls/pk.h>
#include <mbedtls/sha256.h>
#include <mbedtls/ssl.h>
#include <mbedtls/version.h>
#include <mbedtls/x509_crt.h>

#include <cstddef>

namespace k32 {
namespace port {
namespace mbedtls_compat {

// 3.x asks for an RNG to blind the private-key operations while parsing; 2.x does not.
inline int pk_parse_keyfile(mbedtls_pk_context* key, const char* path, int (*f_rng)(void*, unsigned char*, size_t)) {
#if MBEDTLS_VERSION_MAJOR >= 3
  return mbedtls_pk_parse_keyfile(key, path, nullptr, f_rng, nullptr);
#else
  (void)f_rng;
  return mbedtls_pk_parse_keyfile(key, path, nullptr);
#endif
}

inline void conf_min_tls12(mbedtls_ssl_config* conf) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_ssl_conf_min_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
#else
  mbedtls_ssl_conf_min_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
#endif
}

inline void conf_max_tls12(mbedtls_ssl_config* conf) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_ssl_conf_max_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
#else
  mbedtls_ssl_conf_max_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
#endif
}

// A certificate serial from big-endian bytes (3.x writes them as given; 2.x wants an MPI).
inline int crt_set_serial(mbedtls_x509write_cert* crt, const unsigned char* bytes, size_t len) {
#if MBEDTLS_VERSION_MAJOR >= 3
  return mbedtls_x509write_crt_set_serial_raw(crt, const_cast<unsigned char*>(bytes), len);
#else
  mbedtls_mpi serial;
  mbedtls_mpi_init(&serial);
  int rc = mbedtls_mpi_read_binary(&serial, bytes, len);
  if (rc == 0) rc = mbedtls_x509write_crt_set_serial(crt, &serial);
  mbedtls_mpi_free(&serial);
  return rc;
#endif
}

// 2.x names the SHA-256 calls that report errors *_ret; 3.x dropped the suffix.
inline void sha256_starts(mbedtls_sha256_context* c) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256_starts(c, 0);
#else
  mbedtls_sha256_starts_ret(c, 0);
#endif
}
inline void sha256_update(mbedtls_sha256_context* c, const unsigned char* data, size_t len) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256_update(c, data, len);
#else
  mbedtls_sha256_update_ret(c, data, len);
#endif
}
inline void sha256_finish(mbedtls_sha256_context* c, unsigned char out[32]) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256_finish(c, out);
#else
  mbedtls_sha256_finish_ret(c, out);
#endif
}

}  // namespace mbedtls_compat
}  // namespace port
}  // namespace k32
