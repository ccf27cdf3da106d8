#include "app/sd_image_route.h"

#include <cstring>

#include "core/api/status.h"
#include "core/json/json.h"
#include "core/kubelet/image_source.h"
#include "core/util/log.h"
#include "port.h"
#include "wasm/wasm.h"

namespace k32 {
namespace app {

namespace {

void send_status(http::ResponseWriter& w, const api::ApiError& e) {
  w.send(e.code, "application/json", json::dump(api::status_object(e)));
}

void* image_alloc(void*, size_t bytes) { return port::mem_alloc(bytes, port::Region::Any); }
void image_free(void*, void* p) { port::mem_free(p); }
const wasm::Allocator kCheckAllocator{&image_alloc, &image_free, nullptr, nullptr};

}  // namespace

api::ExtraRoute make_sd_image_route(std::string sd_dir) {
  return [sd_dir](http::Request& rq, http::ResponseWriter& w, const api::RequestInfo*) {
    const size_t plen = std::strlen(kSdImagePath);
    if (rq.path.compare(0, plen, kSdImagePath) != 0) return false;
    if (rq.method != "PUT") {
      send_status(w, api::method_not_allowed("sdimages: PUT a Wasm module to " + std::string(kSdImagePath) + "<name>"));
      return true;
    }
    const std::string name = rq.path.substr(plen);
    kubelet::ImageRef ref;
    std::string err;
    // The name obeys the same rules as in an image reference (no '/', no "..").
    if (name.find('/') != std::string::npos || !kubelet::parse_image_ref("wasm://sd/" + name, &ref, &err)) {
      send_status(w, api::bad_request(err.empty() ? "sdimages: the name may not contain '/'" : err));
      return true;
    }
    if (sd_dir.empty()) {
      send_status(w, api::ApiError{409, "Conflict", "this node has no wasm://sd/ store (no card)", json::Value()});
      return true;
    }
    const uint8_t* data = reinterpret_cast<const uint8_t*>(rq.body.data());
    // Refuse what would only fail at pod start: it must load as a module here.
    wasm::Error werr{};
    wasm::Module* m = wasm::module_load(data, rq.body.size(), kCheckAllocator, &werr);
    if (!m) {
      send_status(w, api::bad_request(std::string("sdimages: the body is not a valid Wasm module: ") + werr.message));
      return true;
    }
    wasm::module_free(m);
    const std::string dir = sd_dir + "/kube32/images/" + name;
    const std::string file = dir + "/" + name + ".wasm";
    // Written whole and durably before the answer: an acknowledged image is never lost.
    if (!port::dir_ensure(dir.c_str()) || !port::file_write_atomic(file.c_str(), rq.body.data(), rq.body.size())) {
      send_status(w, api::internal("sdimages: cannot write " + file));
      return true;
    }
    char digest[2 * port::kSha256Bytes + 1];
    port::sha256_hex(data, rq.body.size(), digest);
    logf("[SD] image %s installed (%u bytes, sha256 %s)", name.c_str(), static_cast<unsigned>(rq.body.size()), digest);
    json::Value r = json::Value::object();
    r.set("name", name);
    r.set("size", static_cast<int64_t>(rq.body.size()));
    r.set("sha256", digest);
    r.set("image", "kube32.io/sd/" + name + "@sha256:" + std::string(digest));
    w.send(201, "application/json", json::dump(r));
    return true;
  };
}

}  // namespace app
}  // namespace k32
