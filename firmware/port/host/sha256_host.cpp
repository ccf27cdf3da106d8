// SHA-256 with the host's mbedTLS, the library the boards hash with. A host build without
// mbedTLS (the 32-bit one) compiles the portable port/mcu/sha256_mcu.cpp instead (CMakeLists).
#if defined(K32_PORT_HAS_TLS)
#include <mbedtls/sha256.h>
#include <mbedtls/version.h>

#include <new>

#include "port.h"

namespace k32 {
namespace port {

static_assert(sizeof(mbedtls_sha256_context) <= kSha256Storage, "kSha256Storage too small for mbedTLS' context");
static_assert(alignof(mbedtls_sha256_context) <= 8, "mbedTLS' SHA-256 context needs a stricter alignment");

namespace {
mbedtls_sha256_context* ctx(unsigned char* raw) { return reinterpret_cast<mbedtls_sha256_context*>(raw); }
}  // namespace

// mbedTLS 2.x names the functions that report errors *_ret; 3.x dropped the suffix. With a
// software context in memory none of them can fail.
Sha256::Sha256() {
  mbedtls_sha256_context* c = new (raw_) mbedtls_sha256_context;
  mbedtls_sha256_init(c);
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256_starts(c, 0);
#else
  mbedtls_sha256_starts_ret(c, 0);
#endif
}

Sha256::~Sha256() { mbedtls_sha256_free(ctx(raw_)); }

void Sha256::update(const void* data, size_t len) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256_update(ctx(raw_), static_cast<const unsigned char*>(data), len);
#else
  mbedtls_sha256_update_ret(ctx(raw_), static_cast<const unsigned char*>(data), len);
#endif
}

void Sha256::finish(uint8_t out[kSha256Bytes]) {
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256_finish(ctx(raw_), out);
#else
  mbedtls_sha256_finish_ret(ctx(raw_), out);
#endif
}

}  // namespace port
}  // namespace k32
#endif
