#include "core/kubelet/pod_event.h"

#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace kubelet {

json::Value make_pod_event(const std::string& ns, const std::string& pod, const std::string& uid, const char* type,
                           const char* reason, const std::string& message, const char* component, const std::string& host) {
  std::string now = text::rfc3339(port::wall_time_s());
  json::Value ev = json::Value::object();
  ev.set("kind", "Event");
  ev.set("apiVersion", "v1");
  json::Value md = json::Value::object();
  md.set("name", pod + "." + text::uuid4().substr(0, 8));
  md.set("namespace", ns);
  md.set("uid", text::uuid4());
  md.set("creationTimestamp", now);
  ev.set("metadata", md);
  json::Value obj = json::Value::object();
  obj.set("kind", "Pod");
  obj.set("apiVersion", "v1");
  obj.set("namespace", ns);
  obj.set("name", pod);
  obj.set("uid", uid);
  ev.set("involvedObject", obj);
  ev.set("reason", reason);
  ev.set("message", message);
  ev.set("type", type);
  json::Value src = json::Value::object();
  src.set("component", component);
  if (!host.empty()) src.set("host", host);
  ev.set("source", src);
  ev.set("firstTimestamp", now);
  ev.set("lastTimestamp", now);
  ev.set("count", 1);
  ev.set("reportingComponent", component);
  return ev;
}

}  // namespace kubelet
}  // namespace k32
