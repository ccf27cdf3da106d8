// SHA-256 with ESP-IDF's mbedTLS: with CONFIG_MBEDTLS_HARDWARE_SHA (sdkconfig.defaults) it
// runs on the chip's SHA accelerator. Each context keeps its own state and takes the engine
// per update (S3, C3), or hashes in software while another holds it (the original ESP32), so
// any number of hashes may be under way at once.
#include <new>

#include "mbedtls/sha256.h"
#include "port.h"

namespace k32 {
namespace port {

static_assert(sizeof(mbedtls_sha256_context) <= kSha256Storage, "kSha256Storage too small for ESP-IDF's context");
static_assert(alignof(mbedtls_sha256_context) <= 8, "ESP-IDF's SHA-256 context needs a stricter alignment");

namespace {
mbedtls_sha256_context* ctx(unsigned char* raw) { return reinterpret_cast<mbedtls_sha256_context*>(raw); }
}  // namespace

Sha256::Sha256() {
  mbedtls_sha256_context* c = new (raw_) mbedtls_sha256_context;
  mbedtls_sha256_init(c);
  mbedtls_sha256_starts(c, 0);
}

Sha256::~Sha256() { mbedtls_sha256_free(ctx(raw_)); }

void Sha256::update(const void* data, size_t len) {
  mbedtls_sha256_update(ctx(raw_), static_cast<const unsigned char*>(data), len);
}

void Sha256::finish(uint8_t out[kSha256Bytes]) { mbedtls_sha256_finish(ctx(raw_), out); }

}  // namespace port
}  // namespace k32
