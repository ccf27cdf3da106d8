// port::Sha256 with mbedTLS, the library every port with TLS already links. On the boards
// (CONFIG_MBEDTLS_HARDWARE_SHA) it runs on the chip's SHA accelerator: each context keeps its
// own state and takes the engine per update (S3, C3), or hashes in software while another
// holds it (the original ESP32), so any number of hashes may be under way at once. A build
// without mbedTLS (the 32-bit host build, the bare-metal one) uses port/mcu/sha256_mcu.cpp.
#if defined(K32_PORT_HAS_TLS)
#include <new>

#include "mbedtls_compat.h"
#include "port.h"

namespace k32 {
namespace port {

static_assert(sizeof(mbedtls_sha256_context) <= kSha256Storage, "kSha256Storage too small for mbedTLS' context");
static_assert(alignof(mbedtls_sha256_context) <= 8, "mbedTLS' SHA-256 context needs a stricter alignment");

namespace {
mbedtls_sha256_context* ctx(unsigned char* raw) { return reinterpret_cast<mbedtls_sha256_context*>(raw); }
}  // namespace

// With a context in memory none of these calls can fail, so their results are not kept.
Sha256::Sha256() {
  mbedtls_sha256_context* c = new (raw_) mbedtls_sha256_context;
  mbedtls_sha256_init(c);
  mbedtls_compat::sha256_starts(c);
}

Sha256::~Sha256() { mbedtls_sha256_free(ctx(raw_)); }

void Sha256::update(const void* data, size_t len) {
  mbedtls_compat::sha256_update(ctx(raw_), static_cast<const unsigned char*>(data), len);
}

void Sha256::finish(uint8_t out[kSha256Bytes]) { mbedtls_compat::sha256_finish(ctx(raw_), out); }

}  // namespace port
}  // namespace k32
#endif
