#include "core/api/api_server.h"

#include "core/api/protobuf_body.h"
#include "core/util/log.h"
#include "core/yaml/yaml.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace api {

void ApiServer::set_token(const std::string& token) {
  port::LockGuard<port::Mutex> lock(token_mu_);
  token_ = token;
}

bool ApiServer::has_token() {
  port::LockGuard<port::Mutex> lock(token_mu_);
  return !token_.empty();
}

bool ApiServer::authorized(const http::Request& req) {
  port::LockGuard<port::Mutex> lock(token_mu_);
  if (token_.empty()) return true;
  const std::string* h = req.header("Authorization");
  if (!h || !text::starts_with(*h, "Bearer ")) return false;
  const std::string given = text::trim(h->substr(7));
  // Constant-time comparison: the token guards the whole cluster.
  if (given.size() != token_.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned>(given[i] ^ token_[i]);
  return diff == 0;
}

void ApiServer::send_json(http::ResponseWriter& w, int code, const json::Value& v) {
  w.send(code, "application/json", json::dump(v));
}

void ApiServer::send_error(http::ResponseWriter& w, const ApiError& e) {
  if (e.code == 503) w.add_header("Retry-After", "1");
  send_json(w, e.code, status_object(e));
}

void ApiServer::send_object(http::Request& req, http::ResponseWriter& w, int code, const json::Value& obj,
                            const std::vector<std::string>& warnings) {
  for (const auto& warn : warnings) w.add_header("Warning", "299 - \"" + warn + "\"");
  send_json(w, code, obj);
}

bool wants_table(const http::Request& req) {
  const std::string* a = req.header("Accept");
  return a && a->find("as=Table") != std::string::npos;
}

ApiError decode_body(const http::Request& req, json::Value* out) {
  constexpr int kDepth = static_cast<int>(K32_OBJECT_DEPTH_MAX);
  const std::string* ct = req.header("Content-Type");
  std::string type = ct ? text::lower(text::trim(text::split(*ct, ';')[0])) : "application/json";
  if (req.body.empty()) return bad_request("the request body is empty; a JSON object is required");
  bool json_like = type == "application/json" || type == "application/json-patch+json" ||
                   type == "application/merge-patch+json" || type == "application/strategic-merge-patch+json" || type == "*/*" ||
                   type.empty();
  bool yaml_like = type == "application/yaml" || type == "application/apply-patch+yaml" || type == "text/yaml";
  if (type == "application/vnd.kubernetes.protobuf") {
    std::string perr;
    bool unsupported = false;
    if (!decode_protobuf_object(req.body, out, &perr, &unsupported)) {
      if (!unsupported) return bad_request(perr);
      ApiError e = unsupported_media(type);
      e.message = perr;
      return e;
    }
    if (json::depth(*out) > kDepth) return too_deep(400, kDepth);
    return ApiError();
  }
  if (!json_like && !yaml_like) return unsupported_media(type);
  json::ParseError pe;
  if (json::parse(req.body, out, &pe, kDepth)) return ApiError();
  if (!yaml_like) return pe.too_deep ? too_deep(400, kDepth) : bad_request("the request body is not valid JSON: " + pe.message);
  std::string yerr;
  if (!yaml::to_json(req.body, out, &yerr)) {
    // Deeper than the YAML parser goes is deeper than the API's limit too: say which limit.
    if (pe.too_deep || yerr.find("nesting too deep") != std::string::npos) return too_deep(400, kDepth);
    return bad_request("the request body is not valid YAML: " + yerr);
  }
  if (!out->is_object()) return bad_request("the request body must be a YAML mapping (one Kubernetes object)");
  if (json::depth(*out) > kDepth) return too_deep(400, kDepth);
  return ApiError();
}

void ApiServer::handle(http::Request& req, http::ResponseWriter& w) {
  if (const std::string* too_large = req.header("X-K32-Body-Too-Large")) {
    uint64_t limit = 0;
    text::parse_uint(*too_large, UINT64_MAX, &limit);
    send_error(w, api::too_large(static_cast<size_t>(limit)));
    return;
  }
  const std::string& p = req.path;
  for (auto& route : open_routes_)
    if (route(req, w, nullptr)) return;
  bool open_path = p == "/healthz" || p == "/livez" || p == "/readyz" || p == "/version";
  if (!open_path && !authorized(req)) {
    send_error(w, unauthorized());
    return;
  }
  bool handled = false;
  serve_discovery(req, w, &handled);
  if (handled) return;

  RequestInfo info;
  ApiError err;
  bool is_resource = parse_resource_path(p, &info, &err);
  for (auto& route : routes_)
    if (route(req, w, is_resource ? &info : nullptr)) return;
  if (!err.ok()) {
    send_error(w, err);
    return;
  }
  if (!is_resource) {
    ApiError nf{404, "NotFound", "the server could not find the requested resource", json::Value()};
    send_error(w, nf);
    return;
  }
  serve_resource(req, w, info);
}

// /api/v1/[namespaces/<ns>/]<resource>[/<name>[/<sub>]] and /apis/<g>/<v>/... likewise.
bool ApiServer::parse_resource_path(const std::string& path, RequestInfo* info, ApiError* err) {
  auto parts = text::split(path, '/');
  // parts[0] is "" (leading slash); drop a trailing "" from a trailing slash.
  if (!parts.empty() && parts.back().empty()) parts.pop_back();
  std::string group, version;
  size_t i;
  if (parts.size() >= 3 && parts[1] == "api") {
    version = parts[2];
    i = 3;
  } else if (parts.size() >= 4 && parts[1] == "apis") {
    group = parts[2];
    version = parts[3];
    i = 4;
  } else {
    return false;
  }
  if (i >= parts.size()) return false;
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  for (const auto& seg : rest) {
    if (seg.empty()) {
      *err = bad_request("empty path segment in " + path);
      return false;
    }
  }
  // namespaces/<ns>/<resource>... selects a namespaced resource, unless <resource> is a
  // subresource of the Namespace itself (status, finalize).
  if (rest[0] == "namespaces" && rest.size() >= 3 && group.empty() == (group == "") && rest[2] != "status" &&
      rest[2] != "finalize") {
    info->ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
    info->res = find_resource(group, version, rest[0]);
    if (!info->res || !info->res->namespaced) {
      *err = {404, "NotFound", "the server could not find the requested resource (" + rest[0] + ")", json::Value()};
      return false;
    }
  } else {
    info->res = find_resource(group, version, rest[0]);
    if (!info->res) {
      *err = {404, "NotFound", "the server could not find the requested resource", json::Value()};
      return false;
    }
  }
  if (rest.size() >= 2) info->name = rest[1];
  if (rest.size() >= 3) info->subresource = rest[2];
  if (rest.size() > 3) {
    *err = {404, "NotFound", "the server could not find the requested resource", json::Value()};
    return false;
  }
  if (!info->subresource.empty()) {
    bool known = false;
    for (const auto& s : text::split(info->res->subresources, ','))
      if (s == info->subresource) known = true;
    if (!known) {
      *err = {404, "NotFound", "the server could not find the requested resource (" + info->subresource + ")", json::Value()};
      return false;
    }
  }
  return true;
}

// A write of a body this size leaves the node its heap reserve (ok), or the 507 that refuses
// it before it starts: an allocation failing half-way would end the node. API requests and
// the in-process writers (controllers, ApiServer::local_* in api_local.cpp) are held to it alike.
ApiError heap_room(size_t body_bytes) {
  const uint64_t need = static_cast<uint64_t>(body_bytes) * K32_WRITE_HEAP_FACTOR;
  const uint64_t avail = port::mem_available(port::Region::Any);  // a write's trees: internal RAM first
  if (avail < need + K32_HEAP_RESERVE_BYTES)
    return heap_full(avail > K32_HEAP_RESERVE_BYTES ? avail - K32_HEAP_RESERVE_BYTES : 0, need);
  return ApiError();
}

void ApiServer::serve_resource(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  const std::string& m = req.method;
  // A write the heap cannot hold is refused before it starts (an allocation failing half-way
  // would end the node); deletes always run, since they give memory back.
  const bool write = m == "POST" || m == "PUT" || m == "PATCH";
  // One of the board's write slots for the whole write (write_slots.h), the heap checked once
  // it runs.
  WriteSlot slot(&writes_, write, K32_API_WRITE_WAIT_MS);
  if (write) {
    if (!slot.taken()) {
      send_error(w, {503, "ServiceUnavailable", "the API server is busy with other writes; try again", json::Value()});
      return;
    }
    ApiError full = heap_room(req.body.size());
    if (!full.ok()) {
      send_error(w, full);
      return;
    }
  }
  bool watch = req.query_param("watch") == "true" || req.query_param("watch") == "1";
  if (info.res->read_only && m != "GET" && m != "HEAD") {
    send_error(w, method_not_allowed(std::string(info.res->resource) + " are computed by the API server from Services "
                                                                       "and Pods and are read-only on Kube32"));
    return;
  }
  if (info.name.empty()) {
    if (m == "GET" || m == "HEAD") {
      if (watch) do_watch(req, w, info);
      else do_list(req, w, info);
    } else if (m == "POST") {
      do_create(req, w, info);
    } else if (m == "DELETE") {
      do_delete_collection(req, w, info);
    } else {
      send_error(w, method_not_allowed("method " + m + " is not supported on a collection"));
    }
    return;
  }
  if (info.subresource == "scale") {
    do_scale(req, w, info);
  } else if (m == "GET" || m == "HEAD") {
    if (watch) do_watch(req, w, info);
    else do_get(req, w, info);
  } else if (m == "PUT") {
    do_update(req, w, info);
  } else if (m == "PATCH") {
    do_patch(req, w, info);
  } else if (m == "DELETE") {
    do_delete(req, w, info);
  } else if (m == "POST" && info.subresource == "binding") {
    do_create(req, w, info);
  } else {
    send_error(w, method_not_allowed("method " + m + " is not supported on " + info.res->resource));
  }
}

}  // namespace api
}  // namespace k32
