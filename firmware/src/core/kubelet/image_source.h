// Image references: wasm://embedded/<name> (built into the firmware) and wasm://sd/<name>
// (<card>/kube32/images/<name>/<name>.wasm), each optionally pinned with @sha256:<hex>.
#pragma once
#include <cstdint>
#include <string>

namespace k32 {
namespace kubelet {

struct ImageRef {
  std::string source;  // "embedded" or "sd"
  std::string name;
  std::string pin;  // 64 lowercase hex digits, empty when not pinned
};

// False with a one-line *err naming the rule broken.
bool parse_image_ref(const std::string& image, ImageRef* out, std::string* err);

// The bytes of an image; `owned` is freed with port::mem_free when not null.
struct ImageBytes {
  const uint8_t* data = nullptr;
  size_t len = 0;
  char* owned = nullptr;
  std::string sha256;
  ~ImageBytes();
};

// Loads and verifies. On failure *reason is a kubelet reason word (ErrImagePull,
// ImageDigestMismatch) and *message a one-line explanation.
bool load_image(const ImageRef& ref, const std::string& sd_dir, ImageBytes* out, std::string* reason, std::string* message);

}  // namespace kubelet
}  // namespace k32
