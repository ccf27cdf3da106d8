#include "core/kubelet/image_source.h"

#include <cstring>

#include "core/kubelet/embedded_images.h"
#include "port.h"

namespace k32 {
namespace kubelet {

ImageBytes::~ImageBytes() {
  if (owned) port::mem_free(owned);
}

bool parse_image_ref(const std::string& image, ImageRef* out, std::string* err) {
  static const char kPrefix[] = "wasm://";
  // kubectl run checks --image as an OCI reference and rejects "wasm://...": the same images
  // are also named kube32.io/embedded/<name> and kube32.io/sd/<name>[@sha256:<hex>].
  static const char kOciPrefix[] = "kube32.io/";
  std::string rest;
  if (image.compare(0, sizeof kPrefix - 1, kPrefix) == 0) {
    rest = image.substr(sizeof kPrefix - 1);
  } else if (image.compare(0, sizeof kOciPrefix - 1, kOciPrefix) == 0) {
    rest = image.substr(sizeof kOciPrefix - 1);
  } else {
    *err = "image \"" + image +
           "\" must be wasm://embedded/<name> or wasm://sd/<name> "
           "(or kube32.io/embedded/<name>, kube32.io/sd/<name>)";
    return false;
  }
  size_t at = rest.find('@');
  std::string pin;
  if (at != std::string::npos) {
    std::string digest = rest.substr(at + 1);
    rest = rest.substr(0, at);
    if (digest.compare(0, 7, "sha256:") != 0 || digest.size() != 7 + 64) {
      *err = "image \"" + image + "\": a pin is @sha256:<64 hex digits>";
      return false;
    }
    pin = digest.substr(7);
    for (char& c : pin) {
      if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        *err = "image \"" + image + "\": the sha256 pin is not hexadecimal";
        return false;
      }
    }
  }
  size_t slash = rest.find('/');
  if (slash == std::string::npos) {
    *err = "image \"" + image + "\" names no image after the source";
    return false;
  }
  out->source = rest.substr(0, slash);
  out->name = rest.substr(slash + 1);
  out->pin = pin;
  if (out->source != "embedded" && out->source != "sd") {
    *err = "image \"" + image + "\": unknown source \"" + out->source + "\" (embedded or sd)";
    return false;
  }
  if (out->name.empty() || out->name.size() > 63) {
    *err = "image \"" + image + "\": the name must be 1 to 63 characters";
    return false;
  }
  for (char c : out->name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.') || out->name == ".." ||
        out->name == ".") {
      *err = "image \"" + image + "\": the name may hold a-z, 0-9, '-', '_' and '.' only";
      return false;
    }
  return true;
}

bool load_image(const ImageRef& ref, const std::string& sd_dir, ImageBytes* out, std::string* reason, std::string* message) {
  if (ref.source == "embedded") {
    size_t n = 0;
    const EmbeddedImage* all = embedded_images(&n);
    for (size_t i = 0; i < n; ++i) {
      if (ref.name == all[i].name) {
        out->data = all[i].data;
        out->len = all[i].size;
        out->sha256 = all[i].sha256;
      }
    }
    if (!out->data) {
      *reason = "ErrImagePull";
      *message = "no embedded image \"" + ref.name + "\" in this firmware";
      return false;
    }
  } else {
    if (sd_dir.empty()) {
      *reason = "ErrImagePull";
      *message = "this node has no SD card (the simulator takes --sd DIR)";
      return false;
    }
    std::string path = sd_dir + "/kube32/images/" + ref.name + "/" + ref.name + ".wasm";
    char* data = nullptr;
    size_t len = 0;
    if (!port::file_read(path.c_str(), &data, &len)) {
      *reason = "ErrImagePull";
      *message = "image file " + path + " not found on the card";
      return false;
    }
    out->owned = data;
    out->data = reinterpret_cast<const uint8_t*>(data);
    out->len = len;
    char hex[2 * port::kSha256Bytes + 1];
    port::sha256_hex(out->data, len, hex);
    out->sha256 = hex;
  }
  if (!ref.pin.empty() && ref.pin != out->sha256) {
    *reason = "ImageDigestMismatch";
    *message = "image wasm://" + ref.source + "/" + ref.name + " has sha256:" + out->sha256 + ", the pod pins sha256:" + ref.pin;
    return false;
  }
  return true;
}

}  // namespace kubelet
}  // namespace k32
