// POST, PUT, PATCH (json, merge, strategic, apply), DELETE and the write rules they share.
#include <cstdlib>

#include "core/api/api_server.h"
#include "core/api/kinds/kind_strategy.h"
#include "core/api/selectors.h"
#include "core/api/validation.h"
#include "core/patch/patch.h"
#include "core/schema/schema.h"
#include "core/store/store_format.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace api {

namespace {

// managedFields mirror an object's fields a few levels further down; whatever the API accepts
// must still fit in a store record, or it could not be read back after a restart.
static_assert(K32_OBJECT_DEPTH_MAX + 8 <= store::format::kRecordDepthMax, "OBJECT_DEPTH_MAX too deep for the store");

// A field manager's name is stored in every object's managedFields. kube-apiserver takes at
// most 128 printable characters; bytes that are not UTF-8 would also make a store record that
// cannot be read back, and the control plane would not start again.
bool valid_field_manager(const std::string& m) {
  if (m.size() > 128 || !text::valid_utf8(m)) return false;
  for (unsigned char c : m)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}
constexpr const char* kFieldManagerRule = "Invalid value: must be at most 128 printable UTF-8 characters";

uint64_t rv_of(const json::Value& o) {
  uint64_t v = 0;
  text::parse_uint(o.path_str({"metadata", "resourceVersion"}), UINT64_MAX, &v);
  return v;
}

std::string random_suffix() {
  static const char* kChars = "bcdfghjklmnpqrstvwxz2456789";
  uint8_t b[5];
  port::random_fill(b, sizeof b);
  std::string s;
  for (uint8_t x : b) s.push_back(kChars[x % 27]);
  return s;
}

ApiError from_store(store::Result r, const RequestInfo& info, const std::string& name, store::ObjectStore* st) {
  const store::Limits& lim = st->limits();
  switch (r) {
    case store::Result::Ok: return ApiError();
    case store::Result::Exists: return already_exists(info.res->group, info.res->resource, name);
    case store::Result::NotFound: return not_found(info.res->group, info.res->resource, name);
    case store::Result::Conflict:
      return conflict(info.res->group, info.res->resource, name,
                      "the object has been modified; please apply your changes to the latest version and try again");
    case store::Result::IoError: return internal("the state store could not be written");
    case store::Result::TooLarge: return object_too_large(info.res->resource, name, lim.object_max);
    case store::Result::NoSpace: return store_full(lim.total_max, st->used_bytes(), lim.total_max - lim.reserve());
    case store::Result::TooDeep:
      return invalid(info.res->kind, name, {{"metadata", "the object nests too deep for the store to read it back"}});
  }
  return internal("unknown store result");
}

// DeleteOptions.propagationPolicy (query or body), or the older orphanDependents flag.
ApiError propagation_policy(const http::Request& req, const json::Value& opts, std::string* out) {
  bool present = false;
  std::string p = req.query_param("propagationPolicy", &present);
  if (!present) p = opts["propagationPolicy"].as_string();
  if (p.empty() && opts["orphanDependents"].is_bool()) p = opts["orphanDependents"].as_bool() ? "Orphan" : "Background";
  if (p.empty() && req.query_param("orphanDependents") == "true") p = "Orphan";
  if (!p.empty() && p != "Background" && p != "Foreground" && p != "Orphan")
    return invalid("DeleteOptions", "",
                   {{"propagationPolicy",
                     "Unsupported value: \"" + p + "\": supported values: \"Background\", \"Foreground\", \"Orphan\""}});
  *out = p;
  return ApiError();
}

// A delete's DeleteOptions (the body, when there is one) and its propagation policy.
ApiError delete_options(const http::Request& req, json::Value* opts, std::string* propagation) {
  if (!req.body.empty()) {
    ApiError err = decode_body(req, opts);
    if (!err.ok()) return err;
  }
  return propagation_policy(req, *opts, propagation);
}

}  // namespace

ApiError ApiServer::write_object(const RequestInfo& info, const json::Value* old, json::Value obj, bool is_create,
                                 const http::Request& req, json::Value* stored, std::vector<std::string>* warnings) {
  const ResourceInfo& r = *info.res;
  const KindStrategy& kind_rules = *r.strategy;
  if (!obj.is_object()) return bad_request("the request body must be a JSON object");
  // One limit for every way an object is written (JSON, YAML, protobuf, each kind of patch).
  if (json::depth(obj) > static_cast<int>(K32_OBJECT_DEPTH_MAX)) return too_deep(422, K32_OBJECT_DEPTH_MAX);
  // kind/apiVersion, when given, must name this resource.
  std::string kind = obj["kind"].as_string();
  std::string av = obj["apiVersion"].as_string();
  if ((!kind.empty() && kind != r.kind) || (!av.empty() && av != r.group_version())) {
    return bad_request("the API version in the data (" + av + ") and kind (" + kind + ") do not match the expected " +
                       r.group_version() + " " + r.kind);
  }
  obj.set("kind", r.kind);
  obj.set("apiVersion", r.group_version());
  json::Value& md = obj.at_or_insert("metadata");
  if (!md.is_object()) return bad_request("metadata must be an object");
  std::string ns = md["namespace"].as_string();
  if (r.namespaced) {
    if (!ns.empty() && ns != info.ns)
      return bad_request("the namespace of the provided object does not match the namespace sent on the request");
    md.set("namespace", info.ns);
  } else {
    md.erase("namespace");
  }
  if (is_create && md["name"].as_string().empty() && !md["generateName"].as_string().empty())
    md.set("name", md["generateName"].str() + random_suffix());
  std::string name = md["name"].as_string();
  if (!is_create && name != info.name) {
    return bad_request("the name of the object (" + name + ") does not match the name on the URL (" + info.name + ")");
  }

  // Strict / Warn field validation against the generated schema.
  std::string fv = req.query_param("fieldValidation");
  if (fv.empty()) fv = "Warn";
  if (fv != "Ignore" && fv != "Warn" && fv != "Strict")
    return bad_request("fieldValidation must be one of Ignore, Warn or Strict (got \"" + fv + "\")");
  if (fv != "Ignore") {
    std::vector<std::string> unknown;
    std::string type_error;
    if (!schema::check_fields(r.kind_key(), obj, &unknown, &type_error))
      return bad_request(r.kind + std::string(" in version \"") + r.version + "\" cannot be handled as a " + r.kind + ": " +
                         type_error);
    if (!unknown.empty()) {
      if (fv == "Strict") {
        std::string msg = "strict decoding error: ";
        for (size_t i = 0; i < unknown.size(); ++i)
          msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i].substr(unknown[i][0] == '.' ? 1 : 0) + "\"";
        return bad_request(msg);
      }
      for (const auto& u : unknown) warnings->push_back("unknown field \"" + u.substr(u[0] == '.' ? 1 : 0) + "\"");
    }
  }

  if (r.namespaced) {
    json::Value nsobj;
    if (!store_->get("namespaces", "", info.ns, &nsobj)) return not_found("", "namespaces", info.ns);
    if (is_create && !nsobj["metadata"]["deletionTimestamp"].is_null())
      return {403, "Forbidden",
              std::string(r.resource) + " \"" + name + "\" is forbidden: unable to create new content in namespace " + info.ns +
                  " because it is being terminated",
              json::Value()};
  }
  if (kind_rules.prepare) kind_rules.prepare(&obj);
  // prepare may insert into obj (a Secret's "data" from stringData), which can move its
  // members: `md` would then point at freed memory, so metadata is looked up again.
  json::Value& meta = obj.at_or_insert("metadata");

  std::string sub = info.subresource;
  if (is_create) {
    meta.set("uid", text::uuid4());
    meta.set("creationTimestamp", text::rfc3339(port::wall_time_s()));
    meta.erase("resourceVersion");
    meta.erase("deletionTimestamp");
    if (kind_rules.tracks_generation) meta.set("generation", 1);
    if (kind_rules.resets_status_on_create) obj.erase("status");
  } else {
    const json::Value& om = (*old)["metadata"];
    std::string given_rv = meta["resourceVersion"].as_string();
    if (!given_rv.empty() && given_rv != om["resourceVersion"].as_string())
      return from_store(store::Result::Conflict, info, name, store_);
    meta.set("uid", om["uid"]);
    meta.set("creationTimestamp", om["creationTimestamp"]);
    if (!om["deletionTimestamp"].is_null()) {
      meta.set("deletionTimestamp", om["deletionTimestamp"]);
      if (!om["deletionGracePeriodSeconds"].is_null()) meta.set("deletionGracePeriodSeconds", om["deletionGracePeriodSeconds"]);
    }
    if (r.has_subresource("status")) {
      if (sub == "status") {
        // A status write changes status (and nothing else but labels/annotations).
        json::Value merged = *old;
        merged.set("status", obj["status"]);
        merged.at_or_insert("metadata").set("resourceVersion", meta["resourceVersion"]);
        obj = std::move(merged);
      } else if (old->find("status")) {
        obj.set("status", (*old)["status"]);
      }
    }
    json::Value& md2 = obj.at_or_insert("metadata");
    if (!om["generation"].is_null()) {
      int64_t gen = om["generation"].as_int();
      if ((*old)["spec"] != obj["spec"]) ++gen;
      md2.set("generation", gen);
    }
  }
  apply_defaults(r, &obj);

  FieldErrors errs;
  validate_object(r, obj, &errs);
  if (!is_create && sub.empty() && kind_rules.validate_update) kind_rules.validate_update(*old, obj, &errs);
  if (!errs.empty()) return invalid(r.kind, name, errs);

  // managedFields: apply writes were tracked by server_side_apply; every other write is an
  // Update by its field manager (the fieldManager parameter, else the client's name).
  std::string manager = req.query_param("fieldManager");
  if (!manager.empty() && !valid_field_manager(manager)) return invalid(r.kind, name, {{"fieldManager", kFieldManagerRule}});
  if (manager.empty()) {
    const std::string* ua = req.header("User-Agent");
    manager = ua ? ua->substr(0, ua->find('/')) : "unknown";
    if (manager.empty() || !valid_field_manager(manager)) manager = "unknown";
  }
  const std::string* ct = req.header("Content-Type");
  bool is_apply = ct && text::lower(*ct).find("application/apply-patch") == 0;
  if (!is_apply) {
    std::string merr;
    if (!patch::record_update(r.kind_key(), old, manager, sub, &obj, &merr))
      return bad_request("metadata.managedFields is malformed: " + merr);
  }
  if (json::Value* mf = obj.at_or_insert("metadata").find("managedFields")) {
    for (auto& e : mf->items())
      if (e["manager"].as_string() == manager) e.set("time", text::rfc3339(port::wall_time_s()));
  }

  if (req.query_param("dryRun") == "All") {
    *stored = obj;
    return ApiError();
  }
  store::Result res;
  if (is_create) {
    res = store_->create(r.store_id(), info.ns, name, std::move(obj), stored);
  } else {
    res = store_->update(r.store_id(), info.ns, name, std::move(obj), rv_of(*old), stored);
    // The last finalizer removed from an object being deleted completes the deletion.
    if (res == store::Result::Ok && !(*stored)["metadata"]["deletionTimestamp"].is_null() &&
        (*stored)["metadata"]["finalizers"].items().empty() && !kind_rules.deletes_contents) {
      json::Value removed;
      store_->remove(r.store_id(), info.ns, name, 0, &removed);
    }
  }
  return from_store(res, info, name, store_);
}

void ApiServer::do_create(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  json::Value body;
  ApiError err = decode_body(req, &body);
  if (!err.ok()) {
    send_error(w, err);
    return;
  }
  if (info.subresource == "binding") {
    // pods/<name>/binding: the scheduler's (or a user's) placement of a pod.
    std::string node = body.path_str({"target", "name"});
    if (node.empty()) {
      send_error(w, invalid("Binding", info.name, {{"target.name", "Required value"}}));
      return;
    }
    for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
      json::Value pod;
      if (!store_->get("pods", info.ns, info.name, &pod)) {
        send_error(w, not_found("", "pods", info.name));
        return;
      }
      if (!pod["spec"]["nodeName"].as_string().empty()) {
        send_error(w, conflict("", "pods", info.name,
                               "pod " + info.name + " is already assigned to node \"" + pod["spec"]["nodeName"].str() + "\""));
        return;
      }
      pod.at_or_insert("spec").set("nodeName", node);
      json::Value& conds = pod.at_or_insert("status").at_or_insert("conditions");
      if (!conds.is_array()) conds = json::Value::array();
      bool found = false;
      for (auto& c : conds.items()) {
        if (c["type"].str() == "PodScheduled") {
          c.set("status", "True");
          c.erase("reason");
          c.erase("message");
          found = true;
        }
      }
      if (!found) {
        json::Value c = json::Value::object();
        c.set("type", "PodScheduled");
        c.set("status", "True");
        c.set("lastTransitionTime", text::rfc3339(port::wall_time_s()));
        conds.push(c);
      }
      json::Value stored;
      store::Result res = store_->update("pods", info.ns, info.name, pod, rv_of(pod), &stored);
      if (res == store::Result::Conflict) continue;
      if (res != store::Result::Ok) {
        send_error(w, from_store(res, info, info.name, store_));
        return;
      }
      send_json(w, 201, status_success());
      return;
    }
    send_error(w, from_store(store::Result::Conflict, info, info.name, store_));
    return;
  }
  json::Value stored;
  std::vector<std::string> warnings;
  err = write_object(info, nullptr, std::move(body), true, req, &stored, &warnings);
  if (!err.ok()) {
    send_error(w, err);
    return;
  }
  send_object(req, w, 201, stored, warnings);
}

void ApiServer::do_update(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  json::Value body;
  ApiError err = decode_body(req, &body);
  if (!err.ok()) {
    send_error(w, err);
    return;
  }
  json::Value old;
  if (!store_->get(info.res->store_id(), info.ns, info.name, &old)) {
    send_error(w, not_found(info.res->group, info.res->resource, info.name));
    return;
  }
  json::Value stored;
  std::vector<std::string> warnings;
  err = write_object(info, &old, std::move(body), false, req, &stored, &warnings);
  if (!err.ok()) {
    send_error(w, err);
    return;
  }
  send_object(req, w, 200, stored, warnings);
}

void ApiServer::do_patch(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  const std::string* ct = req.header("Content-Type");
  std::string type = ct ? text::lower(text::trim(text::split(*ct, ';')[0])) : "";
  bool is_apply = type == "application/apply-patch+yaml";
  if (type != "application/json-patch+json" && type != "application/merge-patch+json" &&
      type != "application/strategic-merge-patch+json" && !is_apply) {
    ApiError e = unsupported_media(type);
    e.message = "the server does not support patch type \"" + type +
                "\"; use application/json-patch+json, "
                "application/merge-patch+json, application/strategic-merge-patch+json or application/apply-patch+yaml";
    send_error(w, e);
    return;
  }
  json::Value patch_doc;
  ApiError err = decode_body(req, &patch_doc);
  if (!err.ok()) {
    send_error(w, err);
    return;
  }
  std::string manager = req.query_param("fieldManager");
  if (!manager.empty() && !valid_field_manager(manager)) {
    send_error(w, invalid("PatchOptions", "", {{"fieldManager", kFieldManagerRule}}));
    return;
  }
  if (is_apply && manager.empty()) {
    send_error(w, invalid("PatchOptions", "", {{"fieldManager", "Required value: is required for apply patch"}}));
    return;
  }
  bool force = req.query_param("force") == "true";
  std::string kind_key = info.res->kind_key();
  // A resourceVersion the patch itself sets is a precondition, as on kube-apiserver: the
  // patch applies to that version only (409 otherwise, not retried).
  std::string pinned_rv = patch_doc.path_str({"metadata", "resourceVersion"});
  if (type == "application/json-patch+json") {
    for (const auto& op : patch_doc.items())
      if (op["path"].as_string() == "/metadata/resourceVersion" && op["op"].as_string() != "test" &&
          op["op"].as_string() != "remove")
        pinned_rv = op["value"].as_string();
  }
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    json::Value old;
    bool exists = store_->get(info.res->store_id(), info.ns, info.name, &old);
    if (!exists && !is_apply) {
      send_error(w, not_found(info.res->group, info.res->resource, info.name));
      return;
    }
    if (exists && !pinned_rv.empty() && pinned_rv != old.path_str({"metadata", "resourceVersion"})) {
      send_error(w, conflict(info.res->group, info.res->resource, info.name,
                             "the object has been modified; please apply your changes to the latest version and try again"));
      return;
    }
    json::Value result;
    std::string perr;
    if (type == "application/json-patch+json") {
      if (!patch::json_patch(old, patch_doc, &result, &perr)) {
        send_error(w, {422, "Invalid", "the JSON patch could not be applied: " + perr, json::Value()});
        return;
      }
    } else if (type == "application/merge-patch+json") {
      patch::merge_patch(old, patch_doc, &result);
    } else if (type == "application/strategic-merge-patch+json") {
      if (!patch::strategic_merge(kind_key, old, patch_doc, &result, &perr)) {
        send_error(w, {422, "Invalid", "the strategic merge patch could not be applied: " + perr, json::Value()});
        return;
      }
    } else {
      patch::ApplyResult ar;
      if (!patch::server_side_apply(kind_key, exists ? old : json::Value(), patch_doc, manager, force, &ar, &perr)) {
        if (!ar.conflicts.empty()) {
          std::string msg = "Apply failed with " + text::to_string(static_cast<int64_t>(ar.conflicts.size())) + " conflict(s): ";
          for (size_t i = 0; i < ar.conflicts.size(); ++i) msg += (i ? "; " : "") + ar.conflicts[i];
          send_error(w, {409, "Conflict", msg, json::Value()});
        } else {
          send_error(w, {422, "Invalid", "the apply configuration could not be applied: " + perr, json::Value()});
        }
        return;
      }
      result = std::move(ar.object);
    }
    // Patches never move an object: identity comes from the URL and the stored object.
    json::Value& md = result.at_or_insert("metadata");
    md.set("name", info.name);
    if (info.res->namespaced) md.set("namespace", info.ns);
    if (exists) md.set("resourceVersion", old.path_str({"metadata", "resourceVersion"}));
    json::Value stored;
    std::vector<std::string> warnings;
    err = write_object(info, exists ? &old : nullptr, std::move(result), !exists, req, &stored, &warnings);
    if (err.code == 409 && err.reason == "Conflict" && attempt + 1 < kConflictRetries) continue;
    if (!err.ok()) {
      send_error(w, err);
      return;
    }
    send_object(req, w, exists ? 200 : 201, stored, warnings);
    return;
  }
}

ApiError ApiServer::finish_delete(const RequestInfo& info, const json::Value& given, int64_t grace,
                                  const std::string& propagation, json::Value* out) {
  const ResourceInfo& r = *info.res;
  std::string name = info.name;
  json::Value obj = given;
  // Foreground and Orphan deletions are finished by the garbage collector: it removes the
  // finalizer once the dependents are gone (or no longer point at this object).
  const char* gc_finalizer = propagation == "Foreground" ? "foregroundDeletion" : propagation == "Orphan" ? "orphan" : nullptr;
  if (gc_finalizer && obj["metadata"]["deletionTimestamp"].is_null()) {
    json::Value& fins = obj.at_or_insert("metadata").at_or_insert("finalizers");
    if (!fins.is_array()) fins = json::Value::array();
    bool present = false;
    for (const auto& f : fins.items()) present = present || f.as_string() == gc_finalizer;
    if (!present) fins.push(gc_finalizer);
  }
  const json::Value& md = obj["metadata"];
  const KindStrategy& kind_rules = *r.strategy;
  bool has_finalizers = !md["finalizers"].items().empty();
  // A graceful deletion only marks the object; whoever runs it removes it when done.
  int64_t grace_s = kind_rules.grace_period ? kind_rules.grace_period(obj, grace) : 0;
  bool graceful = grace_s > 0;
  if (has_finalizers || graceful || kind_rules.deletes_contents) {
    if (!md["deletionTimestamp"].is_null() && !graceful) {
      *out = obj;
      return ApiError();
    }
    json::Value upd = obj;
    json::Value& m = upd.at_or_insert("metadata");
    if (m["deletionTimestamp"].is_null()) {
      m.set("deletionTimestamp", text::rfc3339(port::wall_time_s() + grace_s));
      m.set("deletionGracePeriodSeconds", grace_s);
    } else if (graceful && grace_s < m["deletionGracePeriodSeconds"].as_int()) {
      m.set("deletionGracePeriodSeconds", grace_s);
    }
    if (kind_rules.mark_terminating) kind_rules.mark_terminating(&upd);
    store::Result res = store_->update(r.store_id(), info.ns, name, upd, rv_of(obj), out);
    return from_store(res, info, name, store_);
  }
  store::Result res = store_->remove(r.store_id(), info.ns, name, rv_of(obj), out);
  return from_store(res, info, name, store_);
}

void ApiServer::do_delete(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  if (!info.subresource.empty()) {
    send_error(w, method_not_allowed("DELETE is not supported on " + info.subresource));
    return;
  }
  json::Value opts;
  std::string propagation;
  ApiError oerr = delete_options(req, &opts, &propagation);
  if (!oerr.ok()) {
    send_error(w, oerr);
    return;
  }
  int64_t grace = -1;
  if (!opts["gracePeriodSeconds"].is_null()) grace = opts["gracePeriodSeconds"].as_int();
  std::string gq = req.query_param("gracePeriodSeconds");
  uint64_t gv;
  if (!gq.empty() && text::parse_uint(gq, 1u << 30, &gv)) grace = static_cast<int64_t>(gv);
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    json::Value obj;
    if (!store_->get(info.res->store_id(), info.ns, info.name, &obj)) {
      send_error(w, not_found(info.res->group, info.res->resource, info.name));
      return;
    }
    const json::Value& pre = opts["preconditions"];
    if (!pre["uid"].is_null() && pre["uid"].as_string() != obj.path_str({"metadata", "uid"})) {
      send_error(w, conflict(info.res->group, info.res->resource, info.name,
                             "Precondition failed: UID in precondition: " + pre["uid"].as_string() +
                                 ", UID in object meta: " + obj.path_str({"metadata", "uid"})));
      return;
    }
    if (!pre["resourceVersion"].is_null() &&
        pre["resourceVersion"].as_string() != obj.path_str({"metadata", "resourceVersion"})) {
      send_error(w, conflict(info.res->group, info.res->resource, info.name,
                             "Precondition failed: ResourceVersion in precondition: " + pre["resourceVersion"].as_string()));
      return;
    }
    json::Value out;
    ApiError err = finish_delete(info, obj, grace, propagation, &out);
    if (err.code == 409 && attempt + 1 < kConflictRetries) continue;
    if (!err.ok()) {
      send_error(w, err);
      return;
    }
    send_object(req, w, 200, out);
    if (info.res->strategy->deletes_contents) finalize_namespace(info.name);
    return;
  }
}

void ApiServer::do_delete_collection(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  json::Value opts;
  std::string propagation;
  ApiError oerr = delete_options(req, &opts, &propagation);
  if (!oerr.ok()) {
    send_error(w, oerr);
    return;
  }
  uint64_t rv = 0;
  std::vector<json::Value> objs = list_objects(info, &rv);
  std::string sel = req.query_param("labelSelector");
  LabelSelector ls;
  std::string e;
  if (!parse_label_selector(sel, &ls, &e)) {
    send_error(w, bad_request(e));
    return;
  }
  json::Value list = json::Value::object();
  list.set("kind", std::string(info.res->kind) + "List");
  list.set("apiVersion", info.res->group_version());
  json::Value& items = list.set("items", json::Value::array());
  for (const auto& o : objs) {
    if (!ls.matches(o["metadata"]["labels"])) continue;
    RequestInfo one = info;
    one.ns = o.path_str({"metadata", "namespace"});
    one.name = o.path_str({"metadata", "name"});
    json::Value out;
    if (finish_delete(one, o, 0, propagation, &out).ok()) items.push(out);
  }
  send_json(w, 200, list);
}

// Deletes everything in a Terminating namespace, then the namespace itself
// (the namespace controller's "kubernetes" finalizer).
void ApiServer::finalize_namespace(const std::string& ns) {
  for (const auto& r : all_resources()) {
    if (!r.namespaced || r.read_only) continue;
    for (const auto& o : store_->list(r.store_id(), ns, nullptr)) {
      json::Value removed;
      store_->remove(r.store_id(), ns, o.path_str({"metadata", "name"}), 0, &removed);
    }
  }
  json::Value removed;
  store_->remove("namespaces", "", ns, 0, &removed);
}

}  // namespace api
}  // namespace k32
