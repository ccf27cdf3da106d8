#include "core/controllers/controller_event.h"

#include "core/kubelet/pod_event.h"

namespace k32 {
namespace controllers {

void record_event(store::ObjectStore* st, const json::Value& obj, const char* type, const char* reason,
                  const std::string& message, const char* component) {
  const json::Value& md = obj["metadata"];
  std::string ns = md["namespace"].as_string();
  json::Value ev =
      kubelet::make_pod_event(ns, md["name"].as_string(), md["uid"].as_string(), type, reason, message, component, "");
  json::Value& involved = ev.at_or_insert("involvedObject");
  involved.set("kind", obj["kind"]);
  involved.set("apiVersion", obj["apiVersion"]);
  involved.set("resourceVersion", md["resourceVersion"]);
  json::Value stored;
  // A copy: the name must not point into the object that create() takes over.
  std::string name = ev["metadata"]["name"].str();
  st->create("events", ns, name, std::move(ev), &stored);
}

}  // namespace controllers
}  // namespace k32
