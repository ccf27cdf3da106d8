// TLS for the API server with mbedTLS: the node's self-signed P-256 identity, made on first
// boot and kept on the data partition, and server sessions. On the boards mbedTLS allocates
// through the node's allocator in PSRAM where there is some (port/esp32/tls_heap_esp32.cpp),
// leaving internal RAM to Wi-Fi and stacks.
#if defined(K32_PORT_HAS_TLS)
#include <mbedtls/ecp.h>
#include <mbedtls/oid.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "mbedtls_compat.h"
#include "k32_board.h"
#include "port.h"
#include "tls_io.h"

namespace k32 {
namespace port {

namespace {

constexpr size_t kPemMax = K32_TLS_PEM_MAX;

void set_err(char* err, size_t cap, const std::string& what, int rc) { tlsio::describe(err, cap, what.c_str(), rc); }

bool write_pem(const std::string& path, const unsigned char* pem) {
  return file_write_atomic(path.c_str(), pem, std::strlen(reinterpret_cast<const char*>(pem)));
}

// subjectAltName = DNS:localhost, IP:<ip>, DER-encoded here (mbedTLS 2.28 has no IP SAN
// writer); kubectl checks the IP it dials.
std::string san_der(const unsigned char ip[4]) {
  std::string gn;
  gn += static_cast<char>(0x82);  // [2] dNSName
  gn += static_cast<char>(9);
  gn += "localhost";
  gn += static_cast<char>(0x87);  // [7] iPAddress
  gn += static_cast<char>(4);
  gn.append(reinterpret_cast<const char*>(ip), 4);
  std::string seq;
  seq += static_cast<char>(0x30);
  seq += static_cast<char>(gn.size());
  seq += gn;
  return seq;
}

bool make_identity(const std::string& dir, const char* ip, char* err, size_t errcap) {
  unsigned char ipb[4];
  if (!tlsio::parse_ipv4(ip, ipb)) {
    set_err(err, errcap, std::string("not an IPv4 address: ") + ip, 0);
    return false;
  }
  // The PEM buffer comes from the heap: a board thread's stack has no 4 KiB to spare.
  unsigned char* buf = static_cast<unsigned char*>(mem_alloc(kPemMax, Region::Psram));
  if (!buf) {
    set_err(err, errcap, "out of memory for the API certificate", 0);
    return false;
  }
  mbedtls_pk_context key;
  mbedtls_pk_init(&key);
  mbedtls_x509write_cert crt;
  mbedtls_x509write_crt_init(&crt);
  bool ok = false;
  int rc = 0;
  std::string subject = std::string("CN=kube32-apiserver ") + ip + ",O=Kube32";
  std::string san = san_der(ipb);
  unsigned char serial[16];
  random_fill(serial, sizeof serial);
  serial[0] &= 0x7f;  // a positive INTEGER
  do {
    if ((rc = mbedtls_pk_setup(&key, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY))) != 0) break;
    if ((rc = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(key), tlsio::rng, nullptr)) != 0) break;
    mbedtls_x509write_crt_set_version(&crt, MBEDTLS_X509_CRT_VERSION_3);
    mbedtls_x509write_crt_set_md_alg(&crt, MBEDTLS_MD_SHA256);
    mbedtls_x509write_crt_set_subject_key(&crt, &key);
    mbedtls_x509write_crt_set_issuer_key(&crt, &key);
    if ((rc = mbedtls_x509write_crt_set_subject_name(&crt, subject.c_str())) != 0) break;
    if ((rc = mbedtls_x509write_crt_set_issuer_name(&crt, subject.c_str())) != 0) break;
    if ((rc = mbedtls_compat::crt_set_serial(&crt, serial, sizeof serial)) != 0) break;
    // Valid from a fixed past date: a board whose clock is not yet set still accepts it.
    if ((rc = mbedtls_x509write_crt_set_validity(&crt, "20250101000000", "20450101000000")) != 0) break;
    // Its own CA: clients pin this certificate (kubeconfig certificate-authority-data).
    if ((rc = mbedtls_x509write_crt_set_basic_constraints(&crt, 1, 0)) != 0) break;
    if ((rc = mbedtls_x509write_crt_set_key_usage(&crt, MBEDTLS_X509_KU_DIGITAL_SIGNATURE | MBEDTLS_X509_KU_KEY_CERT_SIGN)) != 0)
      break;
    if ((rc = mbedtls_x509write_crt_set_subject_key_identifier(&crt)) != 0) break;
    if ((rc = mbedtls_x509write_crt_set_authority_key_identifier(&crt)) != 0) break;
    if ((rc = mbedtls_x509write_crt_set_extension(&crt, MBEDTLS_OID_SUBJECT_ALT_NAME,
                                                  MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME), 0,
                                                  reinterpret_cast<const unsigned char*>(san.data()), san.size())) != 0)
      break;
    if ((rc = mbedtls_pk_write_key_pem(&key, buf, kPemMax)) != 0) break;
    if (!write_pem(dir + "/api.key", buf)) {
      set_err(err, errcap, "cannot write " + dir + "/api.key", 0);
      rc = 0;
      break;
    }
    if ((rc = mbedtls_x509write_crt_pem(&crt, buf, kPemMax, tlsio::rng, nullptr)) != 0) break;
    if (!write_pem(dir + "/api.crt", buf)) {
      set_err(err, errcap, "cannot write " + dir + "/api.crt", 0);
      rc = 0;
      break;
    }
    ok = true;
  } while (false);
  if (!ok && rc) set_err(err, errcap, "creating the API certificate failed", rc);
  mem_free(buf);
  mbedtls_x509write_crt_free(&crt);
  mbedtls_pk_free(&key);
  return ok;
}

}  // namespace

struct TlsServer {
  mbedtls_ssl_config conf;
  mbedtls_x509_crt cert;
  mbedtls_pk_context key;
};

struct TlsSession {
  mbedtls_ssl_context ssl;
  tlsio::Bio bio;
};

bool tls_identity_ensure(const char* dir, const char* ip, char* cert_path, size_t cap, char* err, size_t errcap) {
  std::string d(dir);
  if (!dir_ensure(dir)) {
    set_err(err, errcap, "cannot create " + d, 0);
    return false;
  }
  std::string crt = d + "/api.crt";
  if (file_size(crt.c_str()) <= 0 || file_size((d + "/api.key").c_str()) <= 0) {
    if (!make_identity(d, ip, err, errcap)) return false;
  }
  std::snprintf(cert_path, cap, "%s", crt.c_str());
  return true;
}

TlsServer* tls_server_new(const char* dir, char* err, size_t errcap) {
  TlsServer* t = new TlsServer();
  mbedtls_ssl_config_init(&t->conf);
  mbedtls_x509_crt_init(&t->cert);
  mbedtls_pk_init(&t->key);
  std::string d(dir);
  int rc;
  if ((rc = mbedtls_x509_crt_parse_file(&t->cert, (d + "/api.crt").c_str())) != 0) {
    set_err(err, errcap, "cannot load " + d + "/api.crt", rc);
  } else if ((rc = mbedtls_compat::pk_parse_keyfile(&t->key, (d + "/api.key").c_str(), tlsio::rng)) != 0) {
    set_err(err, errcap, "cannot load " + d + "/api.key", rc);
  } else if ((rc = mbedtls_ssl_config_defaults(&t->conf, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
                                               MBEDTLS_SSL_PRESET_DEFAULT)) != 0) {
    set_err(err, errcap, "TLS configuration failed", rc);
  } else {
    mbedtls_ssl_conf_rng(&t->conf, tlsio::rng, nullptr);
    mbedtls_compat::conf_min_tls12(&t->conf);
    if ((rc = mbedtls_ssl_conf_own_cert(&t->conf, &t->cert, &t->key)) == 0) return t;
    set_err(err, errcap, "TLS certificate/key mismatch", rc);
  }
  mbedtls_ssl_config_free(&t->conf);
  mbedtls_x509_crt_free(&t->cert);
  mbedtls_pk_free(&t->key);
  delete t;
  return nullptr;
}

TlsSession* tls_accept(TlsServer* srv, Socket s, uint32_t timeout_ms) {
  TlsSession* t = new TlsSession();
  mbedtls_ssl_init(&t->ssl);
  t->bio = tlsio::Bio{s, monotonic_ms() + timeout_ms};
  if (mbedtls_ssl_setup(&t->ssl, &srv->conf) != 0) {
    mbedtls_ssl_free(&t->ssl);
    delete t;
    return nullptr;
  }
  mbedtls_ssl_set_bio(&t->ssl, &t->bio, tlsio::bio_send, tlsio::bio_recv, nullptr);
  int rc;
  while ((rc = mbedtls_ssl_handshake(&t->ssl)) != 0) {
    if (rc != MBEDTLS_ERR_SSL_WANT_READ && rc != MBEDTLS_ERR_SSL_WANT_WRITE) {
      mbedtls_ssl_free(&t->ssl);
      delete t;
      return nullptr;
    }
  }
  return t;
}

int tls_recv(TlsSession* t, void* buf, size_t len, uint32_t timeout_ms) {
  t->bio.deadline_ms = monotonic_ms() + timeout_ms;
  return tlsio::read_some(&t->ssl, buf, len);
}

bool tls_send_all(TlsSession* t, const void* buf, size_t len) { return tlsio::write_all(&t->ssl, buf, len); }

void tls_session_free(TlsSession* t) {
  if (!t) return;
  mbedtls_ssl_close_notify(&t->ssl);
  mbedtls_ssl_free(&t->ssl);
  delete t;
}

}  // namespace port
}  // namespace k32
#endif
