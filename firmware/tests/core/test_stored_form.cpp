// The store's in-memory form of an object: managedFields in the short form read back as the
// same entries (any keys, escapes and nesting), entries it cannot shorten keep the object
// exactly as written, and the short form is much smaller for the usual entries.
#include <string>

#include "check.h"
#include "core/json/json.h"
#include "core/store/stored_form.h"
#include "port.h"

using k32::json::Value;
namespace sf = k32::store::stored_form;

namespace {

Value parse(const std::string& s) {
  Value v;
  k32::json::ParseError pe;
  if (!k32::json::parse(s, &v, &pe)) std::fprintf(stderr, "bad test JSON: %s\n", pe.message.c_str());
  return v;
}

Value round_trip(const Value& obj, bool expect_compact, size_t* bytes = nullptr) {
  bool compact = !expect_compact;
  std::string s = sf::encode(obj, &compact);
  CHECK_EQ(compact, expect_compact);
  if (bytes) *bytes = s.size();
  Value back;
  k32::json::ParseError pe;
  CHECK(sf::decode(s, compact, &back, &pe));
  CHECK(back == obj);
  return back;
}

const char* kConfigMap = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default",
  "uid":"6c431840-63ab-484b-9950-486941404305","creationTimestamp":"2026-12-01T20:55:06Z",
  "managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1",
  "time":"2026-12-01T20:55:06Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:index":{},"f:k00":{},"f:k01":{}},
  "f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}}}},
  {"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1",
  "fieldsV1":{"f:data":{"f:k02":{}}},"subresource":"status"}],"resourceVersion":"7"},
  "data":{"index":"1","k00":"x","k01":"y","k02":"z"}})";

void usual_entries_shrink() {
  Value cm = parse(kConfigMap);
  size_t compact_bytes = 0;
  Value back = round_trip(cm, true, &compact_bytes);
  size_t plain = k32::json::dump(cm).size();
  size_t mf_plain = k32::json::dump(cm["metadata"]["managedFields"]).size();
  // The list is well under half its plain size.
  CHECK(plain - compact_bytes > mf_plain / 2);
  // Entries come back with their fields in Kubernetes' order.
  const auto& e = back["metadata"]["managedFields"].items()[0].members();
  const char* order[] = {"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"};
  CHECK_EQ(e.size(), 6u);
  for (size_t i = 0; i < e.size() && i < 6; ++i) CHECK_EQ(e[i].first, std::string(order[i]));
  CHECK_EQ(back["metadata"]["managedFields"].items()[1]["subresource"].str(), std::string("status"));
}

void odd_keys_and_values() {
  // Keys with the short form's own characters, list keys, values, an empty field name, {}.
  Value cm = parse(kConfigMap);
  Value& e = cm.at_or_insert("metadata").at_or_insert("managedFields").items()[0];
  e.set("fieldsV1", parse(R"J({"f:spec":{"f:containers":{"k:{\"name\":\"a,b(c)~\\\\d\"}":{".":{},"f:image":{}}},
    "f:~x":{},"f:":{"f:":{}},"f:a\\b":{},"v:\"x,y\"":{},"i:0":{"f:(":{"f:)":{}}}},"f:.":{}})J"));
  round_trip(cm, true);
  e.set("fieldsV1", Value::object());
  round_trip(cm, true);
  e.erase("fieldsV1");
  e.erase("time");
  e.erase("apiVersion");
  round_trip(cm, true);
  // Values that only look like the codes stay strings.
  e.set("operation", "1");
  e.set("fieldsType", "FieldsV2");
  e.set("apiVersion", "apps/v1");
  e.set("time", "2026-12-01T20:55:07Z");
  Value back = round_trip(cm, true);
  CHECK(back["metadata"]["managedFields"].items()[0]["operation"].is_string());
}

void unusual_entries_stay_plain() {
  Value cm = parse(kConfigMap);
  Value& mf = cm.at_or_insert("metadata").at_or_insert("managedFields");
  mf.items()[1].set("extra", 1);
  bool compact = true;
  CHECK_EQ(sf::encode(cm, &compact), k32::json::dump(cm));
  CHECK(!compact);
  mf.items()[1].erase("extra");
  mf.items()[1].set("time", 5);
  round_trip(cm, false);
  mf.items()[1].set("time", "t");
  mf.items()[1].set("fieldsV1", parse(R"({"f:a":1})"));
  round_trip(cm, false);
  mf.push(Value("not an entry"));
  round_trip(cm, false);
  mf = Value::object();
  round_trip(cm, false);
  cm.at_or_insert("metadata").erase("managedFields");
  round_trip(cm, false);
  round_trip(Value("scalar"), false);
}

// Random tries over an alphabet heavy in the short form's special characters.
void random_tries() {
  const char alphabet[] = "ab~\\(),.:fkv\"{}";
  uint32_t seed = 12345;
  auto next = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  };
  for (int round = 0; round < 300; ++round) {
    Value trie = Value::object();
    Value* level[4] = {&trie, nullptr, nullptr, nullptr};
    int depth = 0;
    for (int i = 0, n = static_cast<int>(next(12)); i < n; ++i) {
      std::string key = std::string(next(3) ? "f:" : next(2) ? "k:" : ".");
      for (uint32_t j = 0, len = next(5); j < len; ++j) key.push_back(alphabet[next(sizeof alphabet - 1)]);
      Value& child = level[depth]->set(key, Value::object());
      if (depth < 3 && next(2)) level[++depth] = &child;
      else if (depth > 0 && next(3) == 0) --depth;
    }
    Value cm = parse(kConfigMap);
    cm.at_or_insert("metadata").at_or_insert("managedFields").items()[0].set("fieldsV1", trie);
    round_trip(cm, true);
  }
}

}  // namespace

int main() {
  usual_entries_shrink();
  odd_keys_and_values();
  unusual_entries_stay_plain();
  random_tries();
  TEST_MAIN_END();
}
