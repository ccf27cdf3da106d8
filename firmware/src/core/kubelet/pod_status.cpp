#include "core/kubelet/pod_status.h"

#include "core/api/qos_class.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

json::Value state_json(const ContainerState& s) {
  json::Value st = json::Value::object();
  json::Value in = json::Value::object();
  switch (s.kind) {
    case ContainerState::Waiting:
      in.set("reason", s.reason);
      if (!s.message.empty()) in.set("message", s.message);
      st.set("waiting", in);
      break;
    case ContainerState::Running:
      in.set("startedAt", text::rfc3339(s.started_at));
      st.set("running", in);
      break;
    case ContainerState::Terminated:
      in.set("exitCode", static_cast<int64_t>(s.exit_code));
      in.set("reason", s.reason);
      if (!s.message.empty()) in.set("message", s.message);
      if (s.started_at) in.set("startedAt", text::rfc3339(s.started_at));
      in.set("finishedAt", text::rfc3339(s.finished_at ? s.finished_at : port::wall_time_s()));
      st.set("terminated", in);
      break;
  }
  return st;
}

json::Value condition(const json::Value& old, const char* type, bool ok, const std::string& reason) {
  std::string status = ok ? "True" : "False";
  json::Value c = json::Value::object();
  c.set("type", type);
  c.set("status", status);
  c.set("lastProbeTime", nullptr);
  std::string when = text::rfc3339(port::wall_time_s());
  for (const auto& o : old["conditions"].items())
    if (o["type"].str() == type && o["status"].str() == status && o.find("lastTransitionTime"))
      when = o["lastTransitionTime"].as_string();
  c.set("lastTransitionTime", when);
  if (!ok && !reason.empty()) c.set("reason", reason);
  return c;
}

}  // namespace

json::Value pod_status(const Pod& p, const std::string& node_ip, const json::Value& listed) {
  const json::Value& old = listed["status"];
  json::Value st = json::Value::object();
  int running = 0, succeeded = 0, failed = 0, ready = 0;
  bool restarting = false;
  json::Value statuses = json::Value::array();
  for (const auto& cp : p.containers) {
    const Container& c = *cp;
    json::Value cs = json::Value::object();
    cs.set("name", c.name);
    cs.set("state", state_json(c.state));
    if (c.has_last) cs.set("lastState", state_json(c.last));
    else cs.set("lastState", json::Value::object());
    cs.set("ready", c.ready);
    cs.set("restartCount", static_cast<int64_t>(c.restarts));
    cs.set("image", c.image);
    cs.set("imageID", c.image_id);
    cs.set("started", c.state.kind == ContainerState::Running);
    statuses.push(cs);
    if (c.state.kind == ContainerState::Running) running++;
    if (c.state.kind == ContainerState::Terminated) ++(c.state.exit_code == 0 ? succeeded : failed);
    if (c.ready) ready++;
    if (c.state.kind == ContainerState::Waiting && c.has_last) restarting = true;
  }
  size_t n = p.containers.size();
  std::string phase = "Pending";
  if (n && static_cast<size_t>(succeeded + failed) == n) phase = failed ? "Failed" : "Succeeded";
  else if (running || restarting) phase = "Running";
  bool all_ready = n && static_cast<size_t>(ready) == n;
  json::Value conds = json::Value::array();
  conds.push(condition(old, "PodReadyToStartContainers", true, ""));
  conds.push(condition(old, "Initialized", true, ""));
  conds.push(condition(old, "Ready", all_ready, "ContainersNotReady"));
  conds.push(condition(old, "ContainersReady", all_ready, "ContainersNotReady"));
  conds.push(condition(old, "PodScheduled", true, ""));
  st.set("phase", phase);
  st.set("conditions", conds);
  st.set("hostIP", node_ip);
  json::Value hips = json::Value::array();
  json::Value hip = json::Value::object();
  hip.set("ip", node_ip);
  hips.push(hip);
  st.set("hostIPs", hips);
  st.set("podIP", node_ip);
  st.set("podIPs", hips);
  if (p.start_time) st.set("startTime", text::rfc3339(p.start_time));
  st.set("containerStatuses", statuses);
  if (phase == "Failed") {
    for (const auto& c : p.containers)
      if (c->state.kind == ContainerState::Terminated && c->state.exit_code != 0) {
        st.set("reason", c->state.reason);
        st.set("message", "container " + c->name + ": " + c->state.message);
        break;
      }
  }
  // Set by the API server when the pod was created (from its resources) and immutable.
  st.set("qosClass", old["qosClass"].is_string() ? old["qosClass"] : json::Value(api::qos_class(listed["spec"])));
  return st;
}

}  // namespace kubelet
}  // namespace k32
