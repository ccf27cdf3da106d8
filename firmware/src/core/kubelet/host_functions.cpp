// The k32 imports of the pod ABI (declared by the generated k32_abi_table.h). `user` is
// the calling Container; capability checks happen at registration (pod_instance.cpp).
#include <cstring>

#include "core/http/accept_encoding.h"
#include "core/kubelet/kubelet.h"
#include "core/util/text.h"
#include "k32_abi_table.h"
#include "port.h"
#include "k32_board.h"

namespace k32 {
namespace abi {

using kubelet::Container;
using wasm::Caller;
using wasm::Trap;
using wasm::Value;

namespace {

constexpr uint32_t kMaxArgBytes = K32_POD_ARG_MAX;  // longest string a pod may pass in

inline uint32_t u32(const Value& v) { return static_cast<uint32_t>(v.bits); }
inline Trap ret(Value* r, int32_t v) {
  r[0].bits = static_cast<uint32_t>(v);
  return wasm::trap_ok();
}
inline Container* ctr(void* user) { return static_cast<Container*>(user); }

// Reads guest bytes [ptr, ptr+len) into *out; false when out of bounds.
bool read_in(Caller& c, uint32_t ptr, uint32_t len, std::string* out) {
  if (len > kMaxArgBytes) return false;
  out->resize(len);
  return len == 0 || c.read(ptr, &(*out)[0], len);
}

// Guest bytes [ptr, ptr+len) where they are, for a host function that only reads them
// before it returns (the guest cannot run, so its memory cannot move or change meanwhile);
// null when out of bounds or longer than an argument may be, as read_in refuses them.
const char* view_in(Caller& c, uint32_t ptr, uint32_t len) {
  if (len > kMaxArgBytes) return nullptr;
  uint32_t size = 0;
  const uint8_t* mem = c.memory(&size);
  if (len == 0) return "";
  if (!mem || uint64_t(ptr) + len > size) return nullptr;
  return reinterpret_cast<const char*>(mem + ptr);
}

// Copies min(len, cap) bytes of [s, s+n) to the guest; returns the full length or K32_ERR_FAULT.
int32_t copy_out(Caller& c, uint32_t ptr, uint32_t cap, const char* s, size_t size) {
  uint32_t n = size < cap ? static_cast<uint32_t>(size) : cap;
  if (n && !c.write(ptr, s, n)) return kErrFault;
  return static_cast<int32_t>(size);
}
int32_t copy_out(Caller& c, uint32_t ptr, uint32_t cap, const std::string& s) {
  return copy_out(c, ptr, cap, s.data(), s.size());
}

bool header_safe(const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (s[i] == '\r' || s[i] == '\n' || s[i] == '\0') return false;
  return true;
}

}  // namespace

// ---- request ----
Trap host_k32_req_method(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->req) return ret(r, kErrInval);
  return ret(r, copy_out(c, u32(a[0]), u32(a[1]), k->req->method));
}
Trap host_k32_req_path(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->req) return ret(r, kErrInval);
  return ret(r, copy_out(c, u32(a[0]), u32(a[1]), k->req->path));
}
Trap host_k32_req_query(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->req) return ret(r, kErrInval);
  return ret(r, copy_out(c, u32(a[0]), u32(a[1]), k->req->query));
}
Trap host_k32_req_header(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->req) return ret(r, kErrInval);
  std::string name;
  if (!read_in(c, u32(a[0]), u32(a[1]), &name)) return ret(r, kErrFault);
  const std::string* v = k->req->header(name.c_str());
  if (!v) return ret(r, kErrNoent);
  return ret(r, copy_out(c, u32(a[2]), u32(a[3]), *v));
}
Trap host_k32_req_body(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->req) return ret(r, kErrInval);
  return ret(r, copy_out(c, u32(a[0]), u32(a[1]), k->req->body));
}

// ---- response ----
Trap host_k32_resp_status(Caller&, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  uint32_t s = u32(a[0]);
  if (!k->resp || s < 100 || s > 599 || !k->resp->body.empty()) return ret(r, kErrInval);
  k->resp->status = static_cast<int>(s);
  k->resp->sent = true;
  return ret(r, 0);
}
Trap host_k32_resp_header(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->resp || !k->resp->body.empty()) return ret(r, kErrInval);
  const uint32_t name_len = u32(a[1]), value_len = u32(a[3]);
  const char* name = view_in(c, u32(a[0]), name_len);
  const char* value = view_in(c, u32(a[2]), value_len);
  if (!name || !value) return ret(r, kErrFault);
  if (name_len == 0 || !header_safe(name, name_len) || !header_safe(value, value_len) || std::memchr(name, ':', name_len))
    return ret(r, kErrInval);
  // Made in place from guest memory: one copy of each, no temporaries.
  k->resp->headers.emplace_back();
  k->resp->headers.back().name.assign(name, name_len);
  k->resp->headers.back().value.assign(value, value_len);
  return ret(r, 0);
}
Trap host_k32_resp_write(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->resp) return ret(r, kErrInval);
  // From guest memory straight onto the response body (a handler writes in pieces).
  const uint32_t len = u32(a[1]);
  const char* bytes = view_in(c, u32(a[0]), len);
  if (!bytes) return ret(r, kErrFault);
  k->resp->body.append(bytes, len);
  k->resp->sent = true;
  return ret(r, static_cast<int32_t>(len));
}
Trap host_k32_resp_asset(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->resp) return ret(r, kErrInval);
  std::string path;
  if (!read_in(c, u32(a[0]), u32(a[1]), &path)) return ret(r, kErrFault);
  uint32_t status = u32(a[2]);
  if (status != 0 && (status < 100 || status > 599)) return ret(r, kErrInval);
  if (path.empty() || path[0] == '/' || path.find("..") != std::string::npos) return ret(r, kErrNoent);
  const kubelet::Hooks& hooks = k->pod->kubelet->hooks();
  // The bundle of wasm://embedded/<name> is images/web/<name>/ in the firmware; of
  // wasm://sd/<name> the card's kube32/images/<name>/.
  std::string img = k->image.substr(k->image.find("://") + 3);
  img = img.substr(0, img.find('@'));
  bool sd = text::starts_with(img, "sd/");
  std::string bundle = img.substr(img.find('/') + 1);
  const std::string& card = k->pod->kubelet->config().sd_dir;
  if (sd && card.empty()) return ret(r, kErrNoent);
  // Reads one variant of the file; true when it exists.
  auto fetch = [&](const std::string& p, std::string* out) {
    if (!sd) {
      const uint8_t* data = nullptr;
      uint32_t len = 0;
      if (!hooks.embedded_asset || !hooks.embedded_asset(bundle, p, &data, &len)) return false;
      out->assign(reinterpret_cast<const char*>(data), len);
      return true;
    }
    char* data = nullptr;
    size_t len = 0;
    if (!port::file_read((card + "/kube32/images/" + bundle + "/" + p).c_str(), &data, &len)) return false;
    out->assign(data, len);
    port::mem_free(data);
    return true;
  };
  const std::string* ae = k->req ? k->req->header("Accept-Encoding") : nullptr;
  bool gzip_ok = http::accepts_encoding(ae, "gzip");
  std::string body;
  bool gz = gzip_ok && fetch(path + ".gz", &body);
  if (!gz && !fetch(path, &body)) {
    std::string probe;
    if (!gzip_ok && fetch(path + ".gz", &probe)) {  // only the .gz exists and the client refuses gzip
      k->resp->status = 406;
      k->resp->body.clear();
      k->resp->sent = true;
      return ret(r, 0);
    }
    return ret(r, kErrNoent);
  }
  k->resp->status = status ? static_cast<int>(status) : 200;
  k->resp->headers.push_back({"Content-Type", hooks.content_type ? hooks.content_type(path) : "application/octet-stream"});
  if (gz) k->resp->headers.push_back({"Content-Encoding", "gzip"});
  k->resp->headers.push_back({"Vary", "Accept-Encoding"});
  k->resp->body = std::move(body);
  k->resp->sent = true;
  return ret(r, 0);
}

// ---- environment, logs, time ----
Trap host_k32_env_get(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  const uint32_t n = u32(a[1]);
  const char* key = view_in(c, u32(a[0]), n);
  if (!key) return ret(r, kErrFault);
  if (std::memchr(key, '\0', n)) return ret(r, kErrNoent);  // no variable's name holds a NUL
  for (const char* kv : k->wasi_env) {                      // one pointer per "KEY=VALUE" entry of k->env
    if (std::strncmp(kv, key, n) == 0 && kv[n] == '=') {
      const char* value = kv + n + 1;
      return ret(r, copy_out(c, u32(a[2]), u32(a[3]), value, std::strlen(value)));
    }
  }
  return ret(r, kErrNoent);
}
Trap host_k32_log(Caller& c, const Value* a, Value* r, void* user) {
  const uint32_t len = u32(a[1]);
  const char* msg = view_in(c, u32(a[0]), len);
  if (!msg) return ret(r, kErrFault);
  ctr(user)->log.line(msg, len);
  return ret(r, 0);
}
Trap host_k32_time_ms(Caller&, const Value*, Value* r, void*) {
  r[0].bits = port::wall_clock_set() ? static_cast<uint64_t>(port::wall_time_s()) * 1000u : 0u;
  return wasm::trap_ok();
}
Trap host_k32_uptime_ms(Caller&, const Value*, Value* r, void*) {
  r[0].bits = port::monotonic_ms();
  return wasm::trap_ok();
}

// ---- calls ----
Trap host_k32_http_call(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  auto& hook = k->pod->kubelet->hooks().http_call;
  if (!hook) return ret(r, kErrNotsup);
  return ret(r, hook(*k, c, a));
}
Trap host_k32_http_status(Caller&, const Value*, Value* r, void* user) { return ret(r, ctr(user)->last_http_status); }

// ---- channels ----
Trap host_k32_channel_publish(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  std::string topic, data;
  if (!read_in(c, u32(a[0]), u32(a[1]), &topic) || !read_in(c, u32(a[2]), u32(a[3]), &data)) return ret(r, kErrFault);
  if (topic.empty()) return ret(r, kErrInval);
  auto& hook = k->pod->kubelet->hooks().publish;
  return ret(r, hook ? hook(*k, topic, data) : kErrNotsup);
}
Trap host_k32_channel_subscribe(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  std::string topic;
  if (!read_in(c, u32(a[0]), u32(a[1]), &topic)) return ret(r, kErrFault);
  if (topic.empty()) return ret(r, kErrInval);
  auto& hook = k->pod->kubelet->hooks().subscribe;
  if (hook) return ret(r, hook(*k, topic));
  std::shared_ptr<kubelet::Pod> self = k->pod->kubelet->find(k->pod->key());
  if (!self) return ret(r, kErrNoent);
  return ret(r, k->pod->kubelet->subscribe(self, {topic}) ? 0 : kErrNotsup);
}
Trap host_k32_event_topic(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->ev_topic) return ret(r, kErrInval);
  return ret(r, copy_out(c, u32(a[0]), u32(a[1]), *k->ev_topic));
}
Trap host_k32_event_data(Caller& c, const Value* a, Value* r, void* user) {
  Container* k = ctr(user);
  if (!k->ev_data) return ret(r, kErrInval);
  return ret(r, copy_out(c, u32(a[0]), u32(a[1]), *k->ev_data));
}

}  // namespace abi
}  // namespace k32
