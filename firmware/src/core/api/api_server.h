// The Kubernetes REST API of the control plane: discovery, OpenAPI, CRUD, patch, watch,
// Table output and Status errors, over the object store.
#pragma once
#include <functional>
#include <string>

#include "core/api/resources.h"
#include "core/api/status.h"
#include "core/api/write_slots.h"
#include "core/http/http_message.h"
#include "core/store/object_store.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace api {

struct ApiConfig {
  std::string advertise_ip;  // written into /api serverAddressByClientCIDRs
  uint16_t api_port = 6443;
  size_t max_body_bytes = K32_API_BODY_MAX;
};

// Parsed coordinates of a resource request.
struct RequestInfo {
  const ResourceInfo* res = nullptr;
  std::string ns;
  std::string name;
  std::string subresource;
};

// Extra routes mounted under the API server by other parts of the node
// (pod logs proxy, egress gateway): return true when handled.
using ExtraRoute = std::function<bool(http::Request&, http::ResponseWriter&, const RequestInfo*)>;

class ApiServer {
 public:
  ApiServer(store::ObjectStore* store, ApiConfig cfg) : store_(store), cfg_(std::move(cfg)) {}

  void handle(http::Request& req, http::ResponseWriter& w);

  // Bearer token; empty disables auth: any client is accepted (a cluster on its own Wi-Fi
  // access point, provisioned without K32_CMD:TOKEN).
  void set_token(const std::string& token);
  bool has_token();
  // checks_own_auth: the route runs before the bearer-token check and decides itself
  // (the egress gateway logs its refusals).
  void add_route(ExtraRoute r, bool checks_own_auth = false) {
    (checks_own_auth ? open_routes_ : routes_).push_back(std::move(r));
  }
  bool authorized(const http::Request& req);
  // An API group served by a route (the metrics API): listed in /apis beside the kinds' groups.
  void add_group(json::Value group) { extra_groups_.push_back(std::move(group)); }

  // Server-side helpers the node's own controllers use (no HTTP round trip).
  store::ObjectStore* store() { return store_; }

  // In-process writes for the control plane's controllers (api_local.cpp): the same defaults,
  // validation, managedFields and deletion rules as a request from kubectl, under the field
  // manager "kube-controller-manager". `sub` is "" or "status".
  ApiError local_create(const ResourceInfo& r, const std::string& ns, json::Value obj, json::Value* stored);
  ApiError local_update(const ResourceInfo& r, const json::Value& old, json::Value obj, const std::string& sub,
                        json::Value* stored);
  // propagation: "Background", "Foreground" or "Orphan" (what happens to the object's dependents).
  ApiError local_delete(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& propagation,
                        const std::string& uid_precondition);

 private:
  void serve_discovery(http::Request& req, http::ResponseWriter& w, bool* handled);
  void serve_resource(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  bool parse_resource_path(const std::string& path, RequestInfo* info, ApiError* err);

  void do_get(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_list(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_watch(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_create(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_update(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_patch(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_delete(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  void do_delete_collection(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);
  // GET/PUT/PATCH of <deployments|replicasets>/NAME/scale (api_scale.cpp).
  void do_scale(http::Request& req, http::ResponseWriter& w, const RequestInfo& info);

  // A patch, /scale write, binding or delete that names no resourceVersion is applied again to
  // the newer object when another write lands first, as kube-apiserver's GuaranteedUpdate does. Each lost round
  // means another write succeeded, so the bound only stops a thread from spinning without end
  // under a storm of writers; a handful (the old 5) lost to three clients and a controller.
  static constexpr int kConflictRetries = 64;
  // Writes (create/update) shared by POST, PUT, PATCH and apply.
  ApiError write_object(const RequestInfo& info, const json::Value* old, json::Value obj, bool is_create,
                        const http::Request& req, json::Value* stored, std::vector<std::string>* warnings);
  // propagation "Foreground"/"Orphan" leave the object to the garbage collector behind the
  // foregroundDeletion/orphan finalizer; "" or "Background" delete it now.
  ApiError finish_delete(const RequestInfo& info, const json::Value& obj, int64_t grace, const std::string& propagation,
                         json::Value* out);
  std::vector<json::Value> list_objects(const RequestInfo& info, uint64_t* rv);
  void finalize_namespace(const std::string& ns);

  void send_object(http::Request& req, http::ResponseWriter& w, int code, const json::Value& obj,
                   const std::vector<std::string>& warnings = {});
  void send_error(http::ResponseWriter& w, const ApiError& e);
  void send_json(http::ResponseWriter& w, int code, const json::Value& v);

  store::ObjectStore* store_;
  ApiConfig cfg_;
  port::Mutex token_mu_;
  std::string token_;
  std::vector<ExtraRoute> routes_;
  std::vector<ExtraRoute> open_routes_;
  std::vector<json::Value> extra_groups_;
  WriteSlots writes_{K32_API_WRITES};  // the board's API writes at once (write_slots.h)
};

// Decodes a request body (JSON, or YAML that is JSON) into *out; error as Status.
ApiError decode_body(const http::Request& req, json::Value* out);
// True when the client asked for a meta.k8s.io Table.
bool wants_table(const http::Request& req);

}  // namespace api
}  // namespace k32
