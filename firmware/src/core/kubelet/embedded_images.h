// Pod images built into the firmware (wasm://embedded/<name>); the table is generated
// from images/ at build time by host_tools/k32/images/embed.py.
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace kubelet {

struct EmbeddedImage {
  const char* name;
  const uint8_t* data;
  uint32_t size;
  const char* sha256;  // lowercase hex of the bytes above
};

const EmbeddedImage* embedded_images(size_t* count);

}  // namespace kubelet
}  // namespace k32
