// A kubelet's registration and heartbeat: creates its Node, keeps its conditions fresh
// and renews its Lease in kube-node-lease. The API is reached through a NodeApi, which
// is the store itself on the control plane and HTTP on workers.
#pragma once
#include <functional>
#include <string>

#include "core/json/json.h"
#include "core/node/node_config.h"
#include "port.h"

namespace k32 {
namespace node {

class NodeApi {
 public:
  virtual ~NodeApi() = default;
  // Each returns an HTTP-like status (200/201/404/409) or a negative transport error.
  virtual int get(const std::string& path, json::Value* out) = 0;
  virtual int create(const std::string& collection_path, const json::Value& obj, json::Value* out) = 0;
  virtual int replace(const std::string& path, const json::Value& obj, json::Value* out) = 0;
  // A JSON merge patch (RFC 7386) of the object at `path`.
  virtual int patch(const std::string& path, const json::Value& patch, json::Value* out) = 0;
  // As get, the object parsed without the members named in `drop_keys` (a nullptr-ended list,
  // at any level): a view for a reader that needs a few of its fields.
  virtual int get_view(const std::string& path, const char* const* drop_keys, json::Value* out) = 0;
};

// Carries the conditions of `fresh` onto `node`, keeping transition times of unchanged ones.
void refresh_conditions(json::Value* node, const json::Value& fresh);

class Heartbeat {
 public:
  Heartbeat(NodeConfig cfg, NodeApi* api) : cfg_(std::move(cfg)), api_(api) {}
  // Registers (or re-registers) the Node; false while the API is unreachable.
  bool register_node();
  // One heartbeat: Node status + Lease; false when the API could not be reached.
  bool beat();
  // Runs register + heartbeats forever on the calling thread.
  void run();
  // Runs on the heartbeat's thread after each heartbeat that reached the API (the node's
  // usage report rides along: no thread of its own). Set before run().
  void set_after_beat(std::function<void()> f) { after_beat_ = std::move(f); }
  // The node's status.images as each beat reports it (the images whose compiled modules the
  // node holds, sizeBytes their heap): an array, or null for none. Set before run(). A plain
  // function (the stack check bounds a call through it by its one target).
  void set_images(json::Value (*f)()) { images_ = f; }
  // The held modules changed (kubelet::set_modules_changed): the heartbeat's thread sends
  // status.images now rather than at its next beat, still the Node status's one writer.
  // Wake-ups while it sends fold into one more send. Any thread; `self` is the Heartbeat.
  static void images_changed(void* self);

 private:
  // Waits `ms` for the next beat, sending status.images each time images_changed woke it.
  void wait_beat(uint32_t ms);

  NodeConfig cfg_;
  NodeApi* api_;
  std::string node_uid_;
  bool registered_ = false;
  std::function<void()> after_beat_;
  json::Value (*images_)() = nullptr;
  port::Mutex wake_mu_;
  port::CondVar wake_cv_;
  bool images_changed_ = false;  // under wake_mu_
};

}  // namespace node
}  // namespace k32
