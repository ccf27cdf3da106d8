#include "core/api/workloads.h"

#include "core/api/resources.h"
#include "core/api/selectors.h"
#include "core/util/text.h"

namespace k32 {
namespace api {
namespace workloads {

namespace {

const char kPercentMsg[] = "a valid percent string must be a numeric string followed by an ending '%'";

// The Pod's own defaulting, applied to a template's spec (kube-apiserver defaults a
// PodTemplateSpec exactly as it defaults a Pod).
void default_template(json::Value* spec) {
  json::Value& tpl = spec->at_or_insert("template");
  if (!tpl.is_object()) return;
  const ResourceInfo* pod = find_by_kind("v1", "Pod");
  json::Value tmp = json::Value::object();
  tmp.set("spec", tpl["spec"].is_object() ? tpl["spec"] : json::Value::object());
  api::apply_defaults(*pod, &tmp);
  tpl.set("spec", tmp["spec"]);
}

// A template is validated as the Pod it will become; its errors are reported under the
// template's path, as kube-apiserver does.
void validate_template(const json::Value& obj, FieldErrors* errs) {
  const json::Value& tpl = obj["spec"]["template"];
  const ResourceInfo* pod = find_by_kind("v1", "Pod");
  json::Value tmp = json::Value::object();
  json::Value md = tpl["metadata"].is_object() ? tpl["metadata"] : json::Value::object();
  md.set("name", "template");  // a template has no name; the Pod's rule must not fire
  tmp.set("metadata", md);
  tmp.set("spec", tpl["spec"]);
  FieldErrors pod_errs;
  validate_object(*pod, tmp, &pod_errs);
  for (auto& e : pod_errs) errs->push_back({"spec.template." + e.first, e.second});
  std::string rp = tpl["spec"]["restartPolicy"].as_string();
  if (!rp.empty() && rp != "Always")
    errs->push_back({"spec.template.spec.restartPolicy", "Unsupported value: \"" + rp + "\": supported values: \"Always\""});
}

void validate_nonneg(const json::Value& v, const std::string& path, FieldErrors* errs) {
  if (v.is_null()) return;
  if (!v.is_int() || v.as_int() < 0)
    errs->push_back({path, "Invalid value: " + json::dump(v) + ": must be greater than or equal to 0"});
}

void validate_strategy(const json::Value& spec, FieldErrors* errs) {
  const json::Value& st = spec["strategy"];
  std::string type = st["type"].as_string();
  if (type != "RollingUpdate" && type != "Recreate") {
    errs->push_back(
        {"spec.strategy.type", "Unsupported value: \"" + type + "\": supported values: \"Recreate\", \"RollingUpdate\""});
    return;
  }
  const json::Value& ru = st["rollingUpdate"];
  if (type == "Recreate") {
    if (!ru.is_null())
      errs->push_back({"spec.strategy.rollingUpdate", "Forbidden: may not be specified when strategy `type` is 'Recreate'"});
    return;
  }
  int64_t surge = 0, unavail = 0;
  bool ok_s = int_or_percent(ru["maxSurge"], 100, true, &surge);
  bool ok_u = int_or_percent(ru["maxUnavailable"], 100, false, &unavail);
  if (!ok_s)
    errs->push_back(
        {"spec.strategy.rollingUpdate.maxSurge", "Invalid value: " + json::dump(ru["maxSurge"]) + ": " + kPercentMsg});
  if (!ok_u)
    errs->push_back({"spec.strategy.rollingUpdate.maxUnavailable",
                     "Invalid value: " + json::dump(ru["maxUnavailable"]) + ": " + kPercentMsg});
  if (ok_u && ru["maxUnavailable"].is_string() && unavail > 100)
    errs->push_back({"spec.strategy.rollingUpdate.maxUnavailable",
                     "Invalid value: " + json::dump(ru["maxUnavailable"]) + ": must not be greater than 100%"});
  if (ok_s && ok_u && surge == 0 && unavail == 0)
    errs->push_back({"spec.strategy.rollingUpdate.maxUnavailable", "Invalid value: 0: may not be 0 when `maxSurge` is 0"});
}

}  // namespace

bool int_or_percent(const json::Value& v, int64_t total, bool round_up, int64_t* out) {
  if (v.is_int()) {
    *out = v.as_int();
    return *out >= 0;
  }
  if (!v.is_string()) return false;
  const std::string& s = v.str();
  uint64_t pct = 0;
  if (s.size() < 2 || s.back() != '%' || !text::parse_uint(s.substr(0, s.size() - 1), 1u << 20, &pct)) return false;
  int64_t scaled = static_cast<int64_t>(pct) * total;
  *out = round_up ? (scaled + 99) / 100 : scaled / 100;
  return true;
}

void apply_defaults(const std::string& kind, json::Value* obj) {
  json::Value& spec = obj->at_or_insert("spec");
  if (!spec.is_object()) return;
  if (!spec.find("replicas")) spec.set("replicas", 1);
  if (kind == "Deployment") {
    json::Value& st = spec.at_or_insert("strategy");
    if (!st.is_object()) st = json::Value::object();
    if (!st.find("type")) st.set("type", "RollingUpdate");
    if (st["type"].as_string() == "RollingUpdate") {
      json::Value& ru = st.at_or_insert("rollingUpdate");
      if (!ru.is_object()) ru = json::Value::object();
      if (!ru.find("maxUnavailable")) ru.set("maxUnavailable", "25%");
      if (!ru.find("maxSurge")) ru.set("maxSurge", "25%");
    }
    if (!spec.find("revisionHistoryLimit")) spec.set("revisionHistoryLimit", 10);
    if (!spec.find("progressDeadlineSeconds")) spec.set("progressDeadlineSeconds", 600);
  }
  default_template(&spec);
}

void validate(const std::string& kind, const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  validate_nonneg(spec["replicas"], "spec.replicas", errs);
  validate_nonneg(spec["minReadySeconds"], "spec.minReadySeconds", errs);
  const json::Value& sel = spec["selector"];
  LabelSelector ls;
  std::string err;
  if (sel.is_null()) {
    errs->push_back({"spec.selector", "Required value"});
  } else if (!label_selector_from_json(sel, &ls, &err)) {
    errs->push_back({"spec.selector", "Invalid value: " + err});
  } else if (ls.reqs.empty()) {
    errs->push_back({"spec.selector", "Invalid value: {}: empty selector is invalid for " +
                                          std::string(kind == "Deployment" ? "deployment" : "replicaset")});
  } else if (!ls.matches(spec["template"]["metadata"]["labels"])) {
    errs->push_back({"spec.template.metadata.labels", "Invalid value: " + json::dump(spec["template"]["metadata"]["labels"]) +
                                                          ": `selector` does not match template `labels`"});
  }
  if (spec["template"].is_null()) errs->push_back({"spec.template", "Required value"});
  else validate_template(obj, errs);
  if (kind != "Deployment") return;
  validate_nonneg(spec["revisionHistoryLimit"], "spec.revisionHistoryLimit", errs);
  validate_strategy(spec, errs);
  const json::Value& pd = spec["progressDeadlineSeconds"];
  if (!pd.is_null() && (!pd.is_int() || pd.as_int() <= spec["minReadySeconds"].as_int()))
    errs->push_back(
        {"spec.progressDeadlineSeconds", "Invalid value: " + json::dump(pd) + ": must be greater than minReadySeconds"});
}

void validate_update(const std::string&, const json::Value& old, const json::Value& obj, FieldErrors* errs) {
  if (old["spec"]["selector"] != obj["spec"]["selector"])
    errs->push_back({"spec.selector", "Invalid value: " + json::dump(obj["spec"]["selector"]) + ": field is immutable"});
}

namespace {
std::string template_containers(const json::Value& o, const char* field) {
  std::string out;
  for (const auto& ct : o["spec"]["template"]["spec"]["containers"].items())
    out += (out.empty() ? "" : ",") + ct[field].as_string();
  return out;
}
}  // namespace

json::Value containers_cell(const json::Value& o, int64_t) { return json::Value(template_containers(o, "name")); }
json::Value images_cell(const json::Value& o, int64_t) { return json::Value(template_containers(o, "image")); }
json::Value selector_cell(const json::Value& o, int64_t) { return json::Value(format_label_selector(o["spec"]["selector"])); }

json::Value scale_of(const json::Value& obj) {
  json::Value s = json::Value::object();
  s.set("kind", "Scale");
  s.set("apiVersion", "autoscaling/v1");
  json::Value md = json::Value::object();
  for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    const json::Value* v = obj["metadata"].find(k);
    if (v) md.set(k, *v);
  }
  s.set("metadata", md);
  s.set("spec", json::Value::object()).set("replicas", obj["spec"]["replicas"].as_int());
  json::Value& st = s.set("status", json::Value::object());
  st.set("replicas", obj["status"]["replicas"].as_int());
  std::string sel = format_label_selector(obj["spec"]["selector"]);
  if (sel != "<none>") st.set("selector", sel);
  return s;
}

}  // namespace workloads
}  // namespace api
}  // namespace k32
