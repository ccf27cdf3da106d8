// Pod: defaults and validation as kube-apiserver's pod strategy, graceful deletion (the
// kubelet stops a running pod's containers before the object goes), and kubectl's columns.
#include "core/api/kinds/kind_strategy.h"
#include "core/api/pod_update.h"
#include "core/api/qos_class.h"
#include "core/kubelet/pod_instance.h"
#include "core/sched/quantity.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

void validate_pod_spec(const json::Value& spec, const std::string& base, FieldErrors* errs) {
  const json::Value& cs = spec["containers"];
  if (!cs.is_array() || cs.items().empty()) {
    errs->push_back({base + ".containers", "Required value"});
    return;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < cs.items().size(); ++i) {
    const json::Value& c = cs.items()[i];
    std::string p = base + ".containers[" + text::to_string(static_cast<int64_t>(i)) + "]";
    std::string name = c["name"].as_string();
    if (name.empty()) errs->push_back({p + ".name", "Required value"});
    else if (!is_dns1123_label(name)) errs->push_back({p + ".name", invalid_value(name) + kLabelMsg});
    for (const auto& n : names)
      if (n == name && !name.empty()) errs->push_back({p + ".name", "Duplicate value: \"" + name + "\""});
    names.push_back(name);
    if (c["image"].as_string().empty()) errs->push_back({p + ".image", "Required value"});
    const json::Value& ports = c["ports"];
    for (size_t j = 0; j < ports.items().size(); ++j) {
      const json::Value& port = ports.items()[j];
      std::string pp = p + ".ports[" + text::to_string(static_cast<int64_t>(j)) + "]";
      if (!port_number(port["containerPort"]))
        errs->push_back({pp + ".containerPort",
                         "Invalid value: " + json::dump(port["containerPort"]) + ": must be between 1 and 65535, inclusive"});
      if (!port["name"].is_null() && !is_port_name(port["name"].as_string()))
        errs->push_back({pp + ".name", invalid_value(port["name"].as_string()) + "must be no more than 15 characters"});
      validate_protocol(port["protocol"], pp + ".protocol", errs);
    }
  }
  std::string rp = spec["restartPolicy"].as_string();
  if (!rp.empty() && rp != "Always" && rp != "OnFailure" && rp != "Never")
    errs->push_back(
        {base + ".restartPolicy", "Unsupported value: \"" + rp + "\": supported values: \"Always\", \"OnFailure\", \"Never\""});
}

void validate(const json::Value& obj, FieldErrors* errs) { validate_pod_spec(obj["spec"], "spec", errs); }

// A container without a memory request gets one from its image when the image cannot reach
// its limit (or has none): a module that never grows its linear memory, such as echo with its
// 28 KiB, never holds more, so the scheduler and the kubelet charge what it can really take
// (as a LimitRange's default request would) and the limit stays its cap. Where the image is
// unknown before it runs, kube-apiserver's rule stands: the request is the limit.
void default_memory_requests(json::Value& spec) {
  for (auto& c : spec.at_or_insert("containers").items()) {
    if (!c.is_object() || c.path({"resources", "requests", "memory"})) continue;
    uint64_t reach = 0;
    if (!kubelet::image_memory_reach(c["image"].as_string(), &reach)) continue;
    const json::Value* lim = c.path({"resources", "limits", "memory"});
    int64_t limit = 0;
    if (lim && !sched::parse_quantity(lim->is_int() ? text::to_string(lim->as_int()) : lim->as_string(), &limit)) continue;
    const int64_t ki = static_cast<int64_t>((reach + 1023) / 1024);  // quantities in whole Ki
    if (lim && ki * 1024 >= limit) continue;
    json::Value& res = c.at_or_insert("resources");
    if (res.is_null()) res = json::Value::object();
    if (!res.is_object()) continue;
    json::Value& req = res.at_or_insert("requests");
    if (req.is_null()) req = json::Value::object();
    if (!req.is_object()) continue;
    req.set("memory", text::to_string(ki > 0 ? ki : 1) + "Ki");
  }
}

void defaults(json::Value* obj) {
  json::Value& spec = obj->at_or_insert("spec");
  if (!spec.find("restartPolicy")) spec.set("restartPolicy", "Always");
  if (!spec.find("terminationGracePeriodSeconds")) spec.set("terminationGracePeriodSeconds", 30);
  if (!spec.find("dnsPolicy")) spec.set("dnsPolicy", "ClusterFirst");
  if (!spec.find("schedulerName")) spec.set("schedulerName", "default-scheduler");
  if (!spec.find("enableServiceLinks")) spec.set("enableServiceLinks", true);
  for (auto& c : spec.at_or_insert("containers").items()) {
    if (!c.find("imagePullPolicy")) c.set("imagePullPolicy", "IfNotPresent");
    if (!c.find("terminationMessagePath")) c.set("terminationMessagePath", "/dev/termination-log");
    if (!c.find("terminationMessagePolicy")) c.set("terminationMessagePolicy", "File");
    if (json::Value* ports = c.find("ports"))
      for (auto& p : ports->items())
        if (!p.find("protocol")) p.set("protocol", "TCP");
  }
  // Inserting "status" may move obj's members, so the class is worked out before, from spec.
  // The class follows the resources as defaulted, as with a LimitRange's default request: a
  // pod given only limits whose image cannot reach them is Burstable.
  default_memory_requests(spec);
  std::string qos = qos_class(spec);
  json::Value& st = obj->at_or_insert("status");
  if (!st.find("phase")) st.set("phase", "Pending");
  if (!st.find("qosClass")) st.set("qosClass", qos);
}

// A bound, running pod stays Terminating for its grace period so the kubelet can stop it;
// anything else (pending, finished, or grace 0) goes at once.
int64_t grace_period(const json::Value& obj, int64_t requested_s) {
  int64_t grace = requested_s >= 0 ? requested_s : obj["spec"]["terminationGracePeriodSeconds"].as_int(30);
  bool running = obj["status"]["phase"].str() == "Running" && !obj["spec"]["nodeName"].as_string().empty();
  return running ? grace : 0;
}

std::string pod_status(const json::Value& p) {
  if (!p["metadata"]["deletionTimestamp"].is_null()) return "Terminating";
  std::string reason = p["status"]["reason"].as_string();
  std::string phase = p["status"]["phase"].as_string("Pending");
  std::string out = reason.empty() ? phase : reason;
  for (const auto& cs : p["status"]["containerStatuses"].items()) {
    const json::Value& st = cs["state"];
    if (!st["waiting"].is_null() && !st["waiting"]["reason"].as_string().empty()) out = st["waiting"]["reason"].str();
    else if (!st["terminated"].is_null()) {
      std::string r = st["terminated"]["reason"].as_string();
      out = r.empty() ? "Error" : r;
    }
  }
  return out;
}

std::string pod_ready(const json::Value& p) {
  size_t total = p["spec"]["containers"].items().size(), ready = 0;
  for (const auto& cs : p["status"]["containerStatuses"].items())
    if (cs["ready"].as_bool()) ++ready;
  return text::to_string(static_cast<int64_t>(ready)) + "/" + text::to_string(static_cast<int64_t>(total));
}

json::Value pod_restarts(const json::Value& p) {
  int64_t n = 0;
  for (const auto& cs : p["status"]["containerStatuses"].items()) n += cs["restartCount"].as_int();
  return json::Value(n);
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Ready", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(pod_ready(o)); }},
    {"Status", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(pod_status(o)); }},
    {"Restarts", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(json::dump(pod_restarts(o))); }},
    K32_AGE_COLUMN,
    {"IP", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(o["status"]["podIP"].as_string("<none>")); }},
    {"Node", "string", "", 1,
     [](const json::Value& o, int64_t) { return json::Value(o["spec"]["nodeName"].as_string("<none>")); }},
    {"Nominated Node", "string", "", 1, [](const json::Value&, int64_t) { return json::Value("<none>"); }},
    {"Readiness Gates", "string", "", 1, [](const json::Value&, int64_t) { return json::Value("<none>"); }},
};

}  // namespace

extern const KindStrategy kPodKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/true,
    /*resets_status_on_create=*/true,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    defaults,
    validate,
    validate_pod_update,
    grace_period,
    /*mark_terminating=*/nullptr,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
