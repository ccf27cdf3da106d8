// YAML bodies: the manifest styles kubectl users write, and clear errors for the rest.
#include <string>

#include "check.h"
#include "core/json/json.h"
#include "core/yaml/yaml.h"

static std::string conv(const std::string& y) {
  k32::json::Value v;
  std::string err;
  if (!k32::yaml::to_json(y, &v, &err)) return "ERR " + err;
  return k32::json::dump(v);
}

int main() {
  CHECK_EQ(
      conv("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a  # comment\n  labels: {app: web, n: \"1\"}\ndata:\n  k: v\n  "
           "empty:\n"),
      std::string(
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"web","n":"1"}},"data":{"k":"v","empty":null}})"));
  CHECK_EQ(
      conv("spec:\n  containers:\n  - name: c\n    image: wasm://embedded/echo\n    ports:\n      - containerPort: 7000\n        "
           "name: http\n  restartPolicy: Always\n"),
      std::string(
          R"({"spec":{"containers":[{"name":"c","image":"wasm://embedded/echo","ports":[{"containerPort":7000,"name":"http"}]}],"restartPolicy":"Always"}})"));
  CHECK_EQ(conv("a: [1, 2.5, 'it''s', \"q\\n\", true, null, ~]\nb: -3\nc: 1e3\nd: 08x\n"),
           std::string(R"({"a":[1,2.5,"it's","q\n",true,null,null],"b":-3,"c":1000,"d":"08x"})"));
  CHECK_EQ(conv("text: |\n  line1\n\n  line2\nfold: >-\n  a\n  b\nafter: x\n"),
           std::string(R"({"text":"line1\n\nline2\n","fold":"a b","after":"x"})"));
  CHECK_EQ(conv("---\nk: \"http://x:80/a#b\"\nurl: http://h:1/p # c\n"),
           std::string(R"({"k":"http://x:80/a#b","url":"http://h:1/p"})"));
  CHECK_EQ(conv("- a\n- - b\n  - c\n- {x: [1, {y: 2}]}\n"), std::string(R"(["a",["b","c"],{"x":[1,{"y":2}]}])"));
  // Errors name the line.
  CHECK(conv("a: 1\n---\nb: 2\n").find("ERR line 2: a request body holds one object") == 0);
  CHECK(conv("a: &x 1\nb: *x\n").find("anchors") != std::string::npos);
  CHECK(conv("a:\n\tb: 1\n").find("tabs") != std::string::npos);
  CHECK(conv("a: [1, 2\n").find("unterminated") != std::string::npos);
  CHECK(conv("a: 1\na: 2\n").find("duplicate key") != std::string::npos);
  CHECK(conv("a: 1\n   b: 2\n").find("ERR") == 0);
  CHECK(conv("a: \"x\n").find("ERR") == 0);
  // Arbitrary mutations never crash.
  const std::string doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    args: [\"a\", "
                          "'b', {c: d}]\n    text: |\n      hi\n";
  uint32_t seed = 99;
  for (int i = 0; i < 20000; ++i) {
    std::string m = doc;
    seed = seed * 1103515245u + 12345u;
    m[(seed >> 8) % m.size()] = static_cast<char>(seed >> 24);
    if (i % 4 == 0) m.resize((seed >> 4) % m.size());
    conv(m);
  }
  TEST_MAIN_END();
}
