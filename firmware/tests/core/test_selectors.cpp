// Label and field selectors as kubectl and clients send them.
#include "check.h"
#include "core/api/selectors.h"

using k32::json::Value;

static Value labels(std::initializer_list<std::pair<const char*, const char*>> kv) {
  Value v = Value::object();
  for (auto& p : kv) v.set(p.first, p.second);
  return v;
}

int main() {
  k32::api::LabelSelector ls;
  std::string err;
  CHECK(k32::api::parse_label_selector("app=web,tier!=db,env in (a, b),!legacy,has", &ls, &err));
  CHECK(ls.matches(labels({{"app", "web"}, {"env", "b"}, {"has", ""}})));
  CHECK(!ls.matches(labels({{"app", "web"}, {"env", "b"}, {"has", ""}, {"legacy", "1"}})));
  CHECK(!ls.matches(labels({{"app", "web"}, {"env", "c"}, {"has", ""}})));
  CHECK(!ls.matches(labels({{"app", "web"}, {"tier", "db"}, {"env", "a"}, {"has", ""}})));
  CHECK(k32::api::parse_label_selector("env notin (x)", &ls, &err));
  CHECK(ls.matches(labels({})));
  CHECK(!ls.matches(labels({{"env", "x"}})));
  CHECK(!k32::api::parse_label_selector("app in web", &ls, &err));
  CHECK(!k32::api::parse_label_selector("a b=c", &ls, &err));
  CHECK(!k32::api::parse_label_selector("a=b,,c", &ls, &err));

  Value sel = Value::object();
  sel.at_or_insert("matchLabels").set("app", "web");
  Value expr = Value::object();
  expr.set("key", "env");
  expr.set("operator", "In");
  expr.at_or_insert("values").push("prod");
  sel.at_or_insert("matchExpressions").push(expr);
  CHECK(k32::api::label_selector_from_json(sel, &ls, &err));
  CHECK(ls.matches(labels({{"app", "web"}, {"env", "prod"}})));
  CHECK(!ls.matches(labels({{"app", "web"}})));
  CHECK_EQ(k32::api::format_label_selector(sel), std::string("app=web,env in (prod)"));
  CHECK_EQ(k32::api::format_label_selector(Value::object()), std::string("<none>"));

  k32::api::FieldSelector fs;
  CHECK(k32::api::parse_field_selector("spec.nodeName=w1,status.phase!=Failed", &fs, &err));
  Value pod = Value::object();
  pod.at_or_insert("spec").set("nodeName", "w1");
  pod.at_or_insert("status").set("phase", "Running");
  CHECK(fs.matches(pod));
  pod.at_or_insert("status").set("phase", "Failed");
  CHECK(!fs.matches(pod));
  CHECK(!k32::api::parse_field_selector("nonsense", &fs, &err));
  TEST_MAIN_END();
}
