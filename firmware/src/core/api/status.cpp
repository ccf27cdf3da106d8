#include "core/api/status.h"

#include "core/util/text.h"

namespace k32 {
namespace api {

json::Value status_object(const ApiError& e) {
  json::Value s = json::Value::object();
  s.set("kind", "Status");
  s.set("apiVersion", "v1");
  s.set("metadata", json::Value::object());
  s.set("status", "Failure");
  s.set("message", e.message);
  s.set("reason", e.reason);
  if (!e.details.is_null()) s.set("details", e.details);
  s.set("code", e.code);
  return s;
}

json::Value status_success() {
  json::Value s = json::Value::object();
  s.set("kind", "Status");
  s.set("apiVersion", "v1");
  s.set("metadata", json::Value::object());
  s.set("status", "Success");
  return s;
}

static std::string qualified(const std::string& group, const std::string& resource) {
  return group.empty() ? resource : resource + "." + group;
}

static json::Value details(const std::string& group, const std::string& resource, const std::string& name) {
  json::Value d = json::Value::object();
  d.set("name", name);
  if (!group.empty()) d.set("group", group);
  d.set("kind", resource);
  return d;
}

ApiError not_found(const std::string& group, const std::string& resource, const std::string& name) {
  return {404, "NotFound", qualified(group, resource) + " \"" + name + "\" not found", details(group, resource, name)};
}

ApiError already_exists(const std::string& group, const std::string& resource, const std::string& name) {
  return {409, "AlreadyExists", qualified(group, resource) + " \"" + name + "\" already exists", details(group, resource, name)};
}

ApiError conflict(const std::string& group, const std::string& resource, const std::string& name, const std::string& why) {
  return {409, "Conflict", "Operation cannot be fulfilled on " + qualified(group, resource) + " \"" + name + "\": " + why,
          details(group, resource, name)};
}

ApiError too_large_resource_version(uint64_t requested, uint64_t current) {
  json::Value d = json::Value::object();
  json::Value cause = json::Value::object();
  cause.set("reason", "ResourceVersionTooLarge");
  cause.set("message", "Too large resource version");
  d.at_or_insert("causes").push(cause);
  d.set("retryAfterSeconds", 1);
  return {504, "Timeout",
          "Too large resource version: " + text::to_string(static_cast<int64_t>(requested)) +
              ", current: " + text::to_string(static_cast<int64_t>(current)),
          d};
}

ApiError bad_request(const std::string& message) { return {400, "BadRequest", message, json::Value()}; }

ApiError invalid(const std::string& kind, const std::string& name, const std::vector<std::pair<std::string, std::string>>& errs) {
  std::string list;
  json::Value d = json::Value::object();
  d.set("name", name);
  d.set("kind", kind);
  json::Value& causes = d.set("causes", json::Value::array());
  for (size_t i = 0; i < errs.size(); ++i) {
    if (i) list += ", ";
    list += errs[i].first + ": " + errs[i].second;
    json::Value c = json::Value::object();
    c.set("reason", "FieldValueInvalid");
    c.set("message", errs[i].second);
    c.set("field", errs[i].first);
    causes.push(std::move(c));
  }
  std::string msg = kind + " \"" + name + "\" is invalid: " + (errs.size() > 1 ? "[" + list + "]" : list);
  return {422, "Invalid", msg, d};
}

ApiError method_not_allowed(const std::string& message) { return {405, "MethodNotAllowed", message, json::Value()}; }

ApiError unsupported_media(const std::string& ct) {
  return {415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json, application/yaml (in its JSON form); Kube32 does not decode protobuf bodies (got \"" +
              ct + "\")",
          json::Value()};
}

ApiError unauthorized() { return {401, "Unauthorized", "Unauthorized", json::Value()}; }

ApiError gone(const std::string& message) { return {410, "Expired", message, json::Value()}; }

ApiError too_large(size_t limit) {
  return {413, "RequestEntityTooLarge", "Request entity too large: limit is " + text::to_string(static_cast<int64_t>(limit)),
          json::Value()};
}

ApiError too_deep(int code, int limit) {
  std::string msg = (code == 400 ? "the request body" : "the resulting object") +
                    std::string(" nests deeper than the API's limit of ") + text::to_string(static_cast<int64_t>(limit)) +
                    " levels";
  return {code, code == 400 ? "BadRequest" : "Invalid", msg, json::Value()};
}

ApiError object_too_large(const std::string& resource, const std::string& name, uint64_t limit) {
  return {413, "RequestEntityTooLarge",
          resource + " \"" + name + "\" is too large: the store's per-object limit is " +
              text::to_string(static_cast<int64_t>(limit)) + " bytes",
          json::Value()};
}

ApiError store_full(uint64_t budget, uint64_t used, uint64_t create_cap) {
  return {507, "InsufficientStorage",
          "the object store is full: " + text::to_string(static_cast<int64_t>(used)) + " of its budget of " +
              text::to_string(static_cast<int64_t>(budget)) + " bytes are used (new objects may fill it to " +
              text::to_string(static_cast<int64_t>(create_cap)) + "); delete objects to make room",
          json::Value()};
}

ApiError heap_full(uint64_t available, uint64_t needed) {
  return {507, "InsufficientStorage",
          "the node is out of memory: this write needs about " + text::to_string(static_cast<int64_t>(needed)) +
              " bytes of heap and " + text::to_string(static_cast<int64_t>(available)) +
              " are free beyond what the node keeps for itself; delete objects or pods to make room",
          json::Value()};
}

ApiError internal(const std::string& message) {
  return {500, "InternalError", "Internal error occurred: " + message, json::Value()};
}

}  // namespace api
}  // namespace k32
