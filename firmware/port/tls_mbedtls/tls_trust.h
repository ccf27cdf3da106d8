// What each port supplies to the shared TLS client (tls_client_mbedtls.cpp): where the roots
// it trusts come from. The simulator reads the operating system's bundle; a board uses
// ESP-IDF's certificate bundle compiled into the firmware. Both add the optional extra PEM
// file that port::tls_client_trust loads (for example a private egress CA).
#pragma once
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include <cstdint>

namespace k32 {
namespace port {
namespace tlstrust {

// Installs the trusted roots on a client configuration; 0 or an mbedTLS error.
int attach(mbedtls_ssl_config* conf);
// The port's own verdict on one certificate of the chain, before the node's rules are
// applied (mbedTLS verify-callback contract: 0 to go on, flags updated in place).
int verify_first(mbedtls_x509_crt* crt, int depth, uint32_t* flags);

}  // namespace tlstrust
}  // namespace port
}  // namespace k32
