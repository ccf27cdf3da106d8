// The /scale subresource of Deployments and ReplicaSets: their replica count as an
// autoscaling/v1 Scale, read and written the way `kubectl scale` and autoscalers do.
#include "core/api/api_server.h"
#include "core/api/workloads.h"
#include "core/patch/patch.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

// The Scale a PUT or PATCH asks for, from the current one; false with *err when the body
// or the patch is not one. *pinned_rv is the resourceVersion the client asked to write
// over: a PUT's, or one a patch sets itself. A patch that leaves it alone inherits the
// current one, which says nothing about what the client saw: such a patch is applied again
// to the newer object after a conflict, as kube-apiserver does.
bool requested_scale(const http::Request& req, const json::Value& current, json::Value* want, std::string* pinned_rv,
                     ApiError* err) {
  json::Value body;
  *err = decode_body(req, &body);
  if (!err->ok()) return false;
  if (req.method == "PUT") {
    std::string kind = body["kind"].as_string(), av = body["apiVersion"].as_string();
    if ((!kind.empty() && kind != "Scale") || (!av.empty() && av != "autoscaling/v1")) {
      *err = bad_request("the API version in the data (" + av + ") and kind (" + kind +
                         ") do not match the expected autoscaling/v1 Scale");
      return false;
    }
    *want = std::move(body);
    *pinned_rv = want->path_str({"metadata", "resourceVersion"});
    return true;
  }
  const std::string* ct = req.header("Content-Type");
  std::string type = ct ? text::lower(text::trim(text::split(*ct, ';')[0])) : "";
  std::string perr;
  if (type == "application/json-patch+json") {
    if (!patch::json_patch(current, body, want, &perr)) {
      *err = {422, "Invalid", "the JSON patch could not be applied: " + perr, json::Value()};
      return false;
    }
    for (const auto& op : body.items())
      if (op["path"].as_string() == "/metadata/resourceVersion") *pinned_rv = want->path_str({"metadata", "resourceVersion"});
    return true;
  }
  // A Scale holds no lists, so a strategic merge (and an apply of its few fields) is a merge patch.
  if (type == "application/merge-patch+json" || type == "application/strategic-merge-patch+json" ||
      type == "application/apply-patch+yaml") {
    patch::merge_patch(current, body, want);
    *pinned_rv = body.path_str({"metadata", "resourceVersion"});
    return true;
  }
  *err = unsupported_media(type);
  return false;
}

}  // namespace

void ApiServer::do_scale(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  const std::string& m = req.method;
  if (m != "GET" && m != "HEAD" && m != "PUT" && m != "PATCH") {
    send_error(w, method_not_allowed("method " + m + " is not supported on " + std::string(info.res->resource) + "/scale"));
    return;
  }
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    json::Value old;
    if (!store_->get(info.res->store_id(), info.ns, info.name, &old)) {
      send_error(w, not_found(info.res->group, std::string(info.res->resource), info.name));
      return;
    }
    json::Value current = workloads::scale_of(old);
    if (m == "GET" || m == "HEAD") {
      send_json(w, 200, current);
      return;
    }
    json::Value want;
    std::string given_rv;
    ApiError err;
    if (!requested_scale(req, current, &want, &given_rv, &err)) {
      send_error(w, err);
      return;
    }
    if (!given_rv.empty() && given_rv != old.path_str({"metadata", "resourceVersion"})) {
      send_error(w, conflict(info.res->group, info.res->resource, info.name,
                             "the object has been modified; please apply your changes to the latest version and try again"));
      return;
    }
    const json::Value& replicas = want["spec"]["replicas"];
    if (!replicas.is_int() || replicas.as_int() < 0 || replicas.as_int() > INT32_MAX) {
      send_error(w,
                 invalid("Scale", info.name,
                         {{"spec.replicas", "Invalid value: " + json::dump(replicas) + ": must be greater than or equal to 0"}}));
      return;
    }
    json::Value obj = old;
    obj.at_or_insert("spec").set("replicas", replicas.as_int());
    json::Value stored;
    std::vector<std::string> warnings;
    err = write_object(info, &old, std::move(obj), false, req, &stored, &warnings);
    // Someone else wrote the object meanwhile: read it again, unless the client pinned a version.
    if (err.code == 409 && given_rv.empty() && attempt + 1 < kConflictRetries) continue;
    if (!err.ok()) {
      send_error(w, err);
      return;
    }
    send_json(w, 200, workloads::scale_of(stored));
    return;
  }
}

}  // namespace api
}  // namespace k32
