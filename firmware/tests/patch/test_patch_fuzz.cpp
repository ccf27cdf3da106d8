// Fuzz-style robustness test (no libFuzzer): random and mutated patches against random
// documents through every engine. Checks that nothing crashes and a few invariants hold:
// a failed JSON patch leaves the output alone, merge patch is idempotent, re-applying the
// same configuration with server-side apply changes nothing. Fixed seed, so failures replay.
#include <cstdint>

#include "core/patch/patch.h"
#include "patch_test_util.h"

using k32::json::Value;

namespace {

uint32_t g_state = 0x6b333221u;
uint32_t rnd() {  // xorshift32
  g_state ^= g_state << 13;
  g_state ^= g_state >> 17;
  g_state ^= g_state << 5;
  return g_state;
}
uint32_t below(uint32_t n) { return rnd() % n; }

const char* const kKeys[] = {"metadata",
                             "labels",
                             "finalizers",
                             "spec",
                             "containers",
                             "name",
                             "image",
                             "env",
                             "value",
                             "ports",
                             "containerPort",
                             "protocol",
                             "volumes",
                             "emptyDir",
                             "data",
                             "$patch",
                             "$retainKeys",
                             "$setElementOrder/containers",
                             "$deleteFromPrimitiveList/finalizers",
                             "status",
                             "a",
                             "~1/",
                             ""};
const char* const kStrings[] = {"delete", "replace", "merge", "web", "side", "nginx", "TCP", "", "a", "name"};

Value random_value(int depth) {
  uint32_t k = below(depth > 3 ? 5 : 8);
  switch (k) {
    case 0: return Value();
    case 1: return Value(below(2) == 0);
    case 2: return Value(static_cast<int64_t>(below(5)) - 1);
    case 3:
    case 4: return Value(kStrings[below(sizeof kStrings / sizeof *kStrings)]);
    case 5: {
      Value a = Value::array();
      for (uint32_t i = below(4); i > 0; --i) a.push(random_value(depth + 1));
      return a;
    }
    default: {
      Value o = Value::object();
      for (uint32_t i = below(5); i > 0; --i) o.set(kKeys[below(sizeof kKeys / sizeof *kKeys)], random_value(depth + 1));
      return o;
    }
  }
}

std::string random_pointer() {
  std::string p;
  for (uint32_t i = below(4); i > 0; --i) {
    p += "/";
    uint32_t c = below(4);
    if (c == 0) p += std::to_string(below(3));
    else if (c == 1) p += "-";
    else p += kKeys[below(sizeof kKeys / sizeof *kKeys)];
  }
  if (below(10) == 0) p += "~";  // a broken escape now and then
  return p;
}

Value random_ops() {
  static const char* const ops[] = {"add", "remove", "replace", "move", "copy", "test", "bogus"};
  Value arr = Value::array();
  for (uint32_t i = below(5); i > 0; --i) {
    Value op = Value::object();
    if (below(20)) op.set("op", ops[below(7)]);
    if (below(20)) op.set("path", random_pointer());
    if (below(2)) op.set("from", random_pointer());
    if (below(3)) op.set("value", random_value(2));
    arr.push(below(30) ? op : random_value(3));
  }
  return below(40) ? arr : random_value(0);
}

// A pod-like document to aim mutations at something with merge keys.
Value seed_pod() {
  return k32test::J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"},
      "finalizers":["x"]},"spec":{"containers":[{"name":"web","image":"nginx","env":[{"name":"A","value":"1"}],
      "ports":[{"containerPort":80,"protocol":"TCP"}]}],"volumes":[{"name":"v","emptyDir":{}}]}})");
}

// Mutates a value in place: replace a random node by a random value.
void mutate(Value* v, int depth) {
  if (depth > 6 || below(4) == 0) {
    *v = random_value(depth);
    return;
  }
  if (v->is_object() && !v->members().empty()) {
    mutate(&v->members()[below(static_cast<uint32_t>(v->members().size()))].second, depth + 1);
  } else if (v->is_array() && !v->items().empty()) {
    mutate(&v->items()[below(static_cast<uint32_t>(v->items().size()))], depth + 1);
  } else {
    *v = random_value(depth);
  }
}

const char* const kKinds[] = {"v1/Pod", "v1/ConfigMap", "v1/Service", "networking.k8s.io/v1/Ingress"};

}  // namespace

int main() {
  const int kRounds = 4000;
  int applied_ok = 0;
  for (int round = 0; round < kRounds; ++round) {
    Value doc = below(2) ? seed_pod() : random_value(0);
    if (below(2)) mutate(&doc, 0);
    const std::string kind = kKinds[below(4)];

    Value out = Value("sentinel");
    std::string err;
    if (!k32::patch::json_patch(doc, random_ops(), &out, &err)) CHECK(out == Value("sentinel"));

    Value patch = below(2) ? random_value(0) : seed_pod();
    if (below(2)) mutate(&patch, 0);
    Value m1, m2;
    k32::patch::merge_patch(doc, patch, &m1);
    k32::patch::merge_patch(m1, patch, &m2);
    CHECK(m1 == m2);

    Value s;
    k32::patch::strategic_merge(kind, doc, patch, &s, &err);

    Value cfg = seed_pod();
    if (below(2)) mutate(&cfg, 0);
    if (cfg.is_object()) {
      cfg.set("apiVersion", "v1");
      cfg.set("kind", "Pod");
    }
    k32::patch::ApplyResult a1;
    if (k32::patch::server_side_apply("v1/Pod", doc.is_object() ? doc : Value(), cfg, "fuzz", false, &a1, &err)) {
      k32::patch::ApplyResult a2;
      bool ok = k32::patch::server_side_apply("v1/Pod", a1.object, cfg, "fuzz", false, &a2, &err);
      CHECK(ok);
      if (ok && !(a1.object == a2.object)) {
        CHECK(k32test::same("re-apply is a no-op", a2.object, a1.object));
        std::fprintf(stderr, "  config: %s\n", k32::json::dump(cfg).c_str());
      }
      ++applied_ok;
    }
    (void)k32::patch::fields_v1(kind, doc);
    if (m1.is_object()) {
      Value updated = m1;
      bool ok = k32::patch::record_update(kind, doc.is_object() ? &doc : nullptr, "fuzz-update", "", &updated, &err);
      // Only a malformed managedFields may fail, and that needs one in the input.
      if (!ok) CHECK(!m1["metadata"]["managedFields"].is_null() || !doc["metadata"]["managedFields"].is_null());
    }
  }
  std::printf("%d rounds, %d successful applies\n", kRounds, applied_ok);
  CHECK(applied_ok > kRounds / 10);  // the generator must reach the interesting paths
  TEST_MAIN_END();
}
