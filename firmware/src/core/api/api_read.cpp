// GET, LIST (selectors, limit/continue, Table) and WATCH.
#include <cerrno>
#include <cstdlib>

#include "core/api/api_server.h"
#include "core/api/kinds/kind_strategy.h"
#include "core/api/selectors.h"
#include "core/api/tables.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace api {

namespace {

IncludeObject include_of(const http::Request& req) {
  std::string v = req.query_param("includeObject");
  if (v == "None") return IncludeObject::None;
  if (v == "Object") return IncludeObject::Object;
  return IncludeObject::Metadata;
}

std::string list_kind(const ResourceInfo& r) { return std::string(r.kind) + "List"; }

bool parse_selectors(const http::Request& req, LabelSelector* ls, FieldSelector* fs, ApiError* err) {
  std::string e;
  if (!parse_label_selector(req.query_param("labelSelector"), ls, &e) ||
      !parse_field_selector(req.query_param("fieldSelector"), fs, &e)) {
    *err = bad_request(e);
    return false;
  }
  return true;
}

// Where a list stands while it is read item by item: the continue token (the namespace/name
// of the last item returned) and the limit decide which items go out.
struct ListCursor {
  ListCursor(const LabelSelector& l, const FieldSelector& f, uint64_t lim, const std::string& c)
      : ls(l), fs(f), limit(lim), skipping(!c.empty()) {
    // A namespace has no '/': the token's first one ends it (cluster-scoped: "/name").
    const size_t slash = c.find('/');
    cont_ns = slash == std::string::npos ? std::string() : c.substr(0, slash);
    cont_name = slash == std::string::npos ? c : c.substr(slash + 1);
  }
  const LabelSelector& ls;
  const FieldSelector& fs;
  uint64_t limit;
  bool skipping;
  std::string cont_ns, cont_name;
  size_t taken = 0;
  size_t remaining = 0;
  std::string next;
  // Whether `o` goes into the list.
  bool take(const json::Value& o) {
    const std::string& ns = o.path_str({"metadata", "namespace"});
    const std::string& name = o.path_str({"metadata", "name"});
    if (skipping) {
      // Compared as the store orders its walk, namespace first and then name: the string
      // "ns/name" sorts "a-b/x" before "a/y" ('-' < '/') although namespace "a" comes first,
      // and a page ending in "a" would skip all of "a-b".
      const int by_ns = ns.compare(cont_ns);
      if (by_ns < 0 || (by_ns == 0 && name.compare(cont_name) <= 0)) return false;
      skipping = false;
    }
    if (!ls.matches(o["metadata"]["labels"]) || !fs.matches(o)) return false;
    if (limit && taken >= limit) {
      ++remaining;
      return false;
    }
    if (limit && taken + 1 == limit) next = ns + "/" + name;
    ++taken;
    return true;
  }
  // The list's metadata: its resourceVersion, and where the next page starts.
  json::Value metadata(uint64_t rv) const {
    json::Value md = json::Value::object();
    md.set("resourceVersion", text::to_string(static_cast<int64_t>(rv)));
    if (remaining) {
      md.set("continue", next);
      md.set("remainingItemCount", static_cast<int64_t>(remaining));
    }
    return md;
  }
};

// A stored list written as a chunked response, one item at a time as the store parses it:
// the node holds one item's tree and text at a time, not every item's tree and the whole
// body (the kubelet lists its pods every sync; with ten pods that was over 100 KB of
// internal RAM for a moment). The metadata comes after the items, where the resourceVersion
// and the continue token are known; JSON clients read an object's keys in any order.
void stream_list(store::ObjectStore* store, http::ResponseWriter& w, const RequestInfo& info, ListCursor& cur) {
  json::Value kind(list_kind(*info.res)), version(info.res->group_version());
  if (!w.begin_stream(200, "application/json")) return;
  bool ok = w.write_chunk("{\"kind\":" + json::dump(kind) + ",\"apiVersion\":" + json::dump(version) + ",\"items\":[");
  uint64_t rv = 0;
  store->for_each(info.res->store_id(), info.ns, &rv, [&](json::Value& o) {
    if (!cur.take(o)) return true;
    // Items of a list carry no kind/apiVersion on real servers; clients tolerate both.
    ok = w.write_chunk((cur.taken > 1 ? "," : "") + json::dump(o));
    return ok;
  });
  if (ok && w.write_chunk("],\"metadata\":" + json::dump(cur.metadata(rv)) + "}")) w.end_stream();
}

}  // namespace

std::vector<json::Value> ApiServer::list_objects(const RequestInfo& info, uint64_t* rv) {
  if (info.res->strategy->compute) return info.res->strategy->compute(store_, info.ns, rv);
  return store_->list(info.res->store_id(), info.ns, rv);
}

void ApiServer::do_get(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  json::Value obj;
  bool found = false;
  if (info.res->read_only) {
    uint64_t rv;
    for (auto& o : list_objects(info, &rv)) {
      if (o.path_str({"metadata", "name"}) == info.name) {
        obj = std::move(o);
        found = true;
      }
    }
  } else {
    found = store_->get(info.res->store_id(), info.ns, info.name, &obj);
  }
  if (!found) {
    send_error(w, not_found(info.res->group, info.res->resource, info.name));
    return;
  }
  if (info.subresource == "log") {
    // Pod logs are served by the kubelet routes; reaching here means none is mounted.
    send_error(w, {404, "NotFound", "logs of pod \"" + info.name + "\" are not available", json::Value()});
    return;
  }
  if (wants_table(req)) {
    std::vector<json::Value> one{obj};
    send_json(w, 200,
              make_table(*info.res, one, include_of(req), port::wall_time_s(), obj.path_str({"metadata", "resourceVersion"})));
    return;
  }
  send_object(req, w, 200, obj);
}

void ApiServer::do_list(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  LabelSelector ls;
  FieldSelector fs;
  ApiError err;
  if (!parse_selectors(req, &ls, &fs, &err)) {
    send_error(w, err);
    return;
  }
  uint64_t limit = 0;
  std::string limit_s = req.query_param("limit");
  if (!limit_s.empty() && !text::parse_uint(limit_s, 100000, &limit)) {
    send_error(w, bad_request("limit must be a non-negative integer"));
    return;
  }
  const std::string cont = req.query_param("continue");
  ListCursor cur(ls, fs, limit, cont);
  if (!wants_table(req) && !info.res->strategy->compute) {
    stream_list(store_, w, info, cur);
    return;
  }
  // A table (kubectl get) or a computed list (built whole by its strategy anyway).
  uint64_t rv = 0;
  std::vector<json::Value> items;
  for (auto& o : list_objects(info, &rv))
    if (cur.take(o)) items.push_back(std::move(o));
  if (wants_table(req)) {
    json::Value t = make_table(*info.res, items, include_of(req), port::wall_time_s(), text::to_string(static_cast<int64_t>(rv)));
    if (cur.remaining) t.at_or_insert("metadata").set("continue", cur.next);
    send_json(w, 200, t);
    return;
  }
  // A computed list (Endpoints, EndpointSlices: every pod starting reads its namespace's) is
  // written as a chunked response an item at a time, each item's tree freed once written,
  // not as one list tree and its whole text beside the items.
  json::Value kind(list_kind(*info.res)), version(info.res->group_version());
  if (!w.begin_stream(200, "application/json")) return;
  bool ok = w.write_chunk("{\"kind\":" + json::dump(kind) + ",\"apiVersion\":" + json::dump(version) + ",\"items\":[");
  for (size_t i = 0; ok && i < items.size(); ++i) {
    ok = w.write_chunk((i ? "," : "") + json::dump(items[i]));
    items[i] = json::Value();
  }
  if (ok && w.write_chunk("],\"metadata\":" + json::dump(cur.metadata(rv)) + "}")) w.end_stream();
}

void ApiServer::do_watch(http::Request& req, http::ResponseWriter& w, const RequestInfo& info) {
  if (info.res->read_only) {
    send_error(w, method_not_allowed(std::string(info.res->resource) + " do not support watch on Kube32"));
    return;
  }
  LabelSelector ls;
  FieldSelector fs;
  ApiError err;
  if (!parse_selectors(req, &ls, &fs, &err)) {
    send_error(w, err);
    return;
  }
  if (!info.name.empty()) {
    FieldSelector::Term t{"metadata.name", info.name, false};
    fs.terms.push_back(t);
  }
  bool table = wants_table(req);
  bool bookmarks = req.query_param("allowWatchBookmarks") == "true";
  uint64_t timeout_s = 1800;
  std::string ts = req.query_param("timeoutSeconds");
  if (!ts.empty() && !text::parse_uint(ts, 86400, &timeout_s)) {
    send_error(w, bad_request("timeoutSeconds must be a non-negative integer"));
    return;
  }
  std::string rv_param = req.query_param("resourceVersion");
  uint64_t since = 0;
  // sendInitialEvents (kubectl 1.37's waits use it): the current state as ADDED events, then
  // a bookmark annotated k8s.io/initial-events-end, then the changes.
  bool send_initial = req.query_param("sendInitialEvents") == "true";
  if (send_initial && !bookmarks) {
    send_error(
        w, invalid("ListOptions", "",
                   {{"allowWatchBookmarks", "Required value: allowWatchBookmarks must be true when sendInitialEvents is set"}}));
    return;
  }
  bool initial_list = send_initial || rv_param.empty() || rv_param == "0";
  if (!initial_list && !text::parse_uint(rv_param, UINT64_MAX, &since)) {
    send_error(w, bad_request("resourceVersion \"" + rv_param + "\" is not a valid version"));
    return;
  }
  if (!initial_list && since > store_->current_rv()) {
    // A version this store has not reached yet: kube-apiserver waits up to 3 s for it,
    // then answers 504 "Too large resource version" (clients retry or relist).
    uint64_t give_up = port::monotonic_ms() + 3000;
    while (store_->current_rv() < since && port::monotonic_ms() < give_up) store_->wait_newer(store_->current_rv(), 250);
    if (store_->current_rv() < since) {
      send_error(w, too_large_resource_version(since, store_->current_rv()));
      return;
    }
  }
  auto matches = [&](const json::Value& o, const std::string& ns) {
    if (!info.ns.empty() && ns != info.ns) return false;
    return ls.matches(o["metadata"]["labels"]) && fs.matches(o);
  };
  auto encode = [&](const char* type, const json::Value& obj) {
    json::Value ev = json::Value::object();
    ev.set("type", type);
    if (table && std::string(type) != "BOOKMARK" && std::string(type) != "ERROR") {
      std::vector<json::Value> one{obj};
      ev.set("object",
             make_table(*info.res, one, include_of(req), port::wall_time_s(), obj.path_str({"metadata", "resourceVersion"})));
    } else {
      ev.set("object", obj);
    }
    return json::dump(ev) + "\n";
  };
  w.begin_stream(200, "application/json");
  if (initial_list) {
    // Without a version, a watch starts with ADDED events for what exists now.
    uint64_t rv = 0;
    std::vector<json::Value> all = store_->list(info.res->store_id(), info.ns, &rv);
    for (const auto& o : all)
      if (matches(o, o.path_str({"metadata", "namespace"})) && !w.write_chunk(encode("ADDED", o))) return;
    since = rv;
    if (send_initial) {
      json::Value bm = json::Value::object();
      bm.set("kind", info.res->kind);
      bm.set("apiVersion", info.res->group_version());
      json::Value md = json::Value::object();
      md.set("resourceVersion", text::to_string(static_cast<int64_t>(since)));
      md.at_or_insert("annotations").set("k8s.io/initial-events-end", "true");
      bm.set("metadata", md);
      if (!w.write_chunk(encode("BOOKMARK", bm))) return;
    }
  }
  uint64_t deadline = port::monotonic_ms() + timeout_s * 1000;
  uint64_t last_bookmark = port::monotonic_ms();
  for (;;) {
    std::vector<store::Event> evs;
    bool expired = false;
    store_->events_since(since, &evs, &expired);
    if (expired) {
      ApiError g = gone("too old resource version: " + text::to_string(static_cast<int64_t>(since)) + " (" +
                        text::to_string(static_cast<int64_t>(store_->current_rv())) + ")");
      w.write_chunk(encode("ERROR", status_object(g)));
      w.end_stream();
      return;
    }
    for (const auto& ev : evs) {
      since = ev.rv;
      if (ev.resource != info.res->store_id()) continue;
      // As kube-apiserver's watch cache: what the watcher sees is decided on the object
      // before and after the change, so an object entering the selection arrives as ADDED
      // and one leaving it as DELETED (its last matching state at this version).
      bool now = ev.type != store::EventType::Deleted && matches(ev.object, ev.ns);
      bool before = ev.type == store::EventType::Deleted
                        ? matches(ev.object, ev.ns)
                        : ev.type == store::EventType::Modified && !ev.prev.is_null() && matches(ev.prev, ev.ns);
      if (!now && !before) continue;
      bool ok;
      if (ev.type == store::EventType::Deleted) {
        ok = w.write_chunk(encode("DELETED", ev.object));
      } else if (now && before) {
        ok = w.write_chunk(encode("MODIFIED", ev.object));
      } else if (now) {
        ok = w.write_chunk(encode("ADDED", ev.object));
      } else {
        json::Value gone_obj = ev.prev;
        gone_obj.at_or_insert("metadata").set("resourceVersion", text::to_string(static_cast<int64_t>(ev.rv)));
        ok = w.write_chunk(encode("DELETED", gone_obj));
      }
      if (!ok) return;
    }
    uint64_t now = port::monotonic_ms();
    if (now >= deadline) break;
    if (bookmarks && now - last_bookmark >= 10000) {
      last_bookmark = now;
      json::Value bm = json::Value::object();
      bm.set("kind", info.res->kind);
      bm.set("apiVersion", info.res->group_version());
      json::Value md = json::Value::object();
      md.set("resourceVersion", text::to_string(static_cast<int64_t>(since)));
      bm.set("metadata", md);
      if (!w.write_chunk(encode("BOOKMARK", bm))) return;
    }
    if (!store_->wait_newer(since, 1000)) {
      // Nothing new: a client that went away frees its watch thread.
      if (port::tcp_peer_closed(w.socket())) return;
    }
  }
  w.end_stream();
}

}  // namespace api
}  // namespace k32
