// Protobuf request bodies: a ConfigMap as kubectl encodes it, and arbitrary bytes.
#include <string>

#include "check.h"
#include "core/api/protobuf_body.h"

static std::string field(int num, const std::string& bytes) {
  std::string out;
  out.push_back(static_cast<char>((num << 3) | 2));
  out.push_back(static_cast<char>(bytes.size()));  // all test payloads are < 128 bytes
  return out + bytes;
}

int main() {
  std::string meta = field(1, "cm1") + field(3, "default") + field(11, field(1, "app") + field(2, "web"));
  std::string raw = field(1, meta) + field(2, field(1, "k") + field(2, "v")) + field(3, field(1, "b") + field(2, "\x01\x02"));
  std::string unknown = field(1, field(1, "v1") + field(2, "ConfigMap")) + field(2, raw);
  std::string body = std::string("k8s\0", 4) + unknown;
  k32::json::Value obj;
  std::string err;
  CHECK(k32::api::decode_protobuf_object(body, &obj, &err));
  CHECK_EQ(k32::json::dump(obj), std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"default","labels":{"app":"web"}},"data":{"k":"v"},"binaryData":{"b":"AQI="}})"));
  // Other kinds and malformed envelopes are refused with a reason.
  std::string svc = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "Service")) + field(2, "");
  CHECK(!k32::api::decode_protobuf_object(svc, &obj, &err) && err.find("only for ConfigMap") != std::string::npos);
  CHECK(!k32::api::decode_protobuf_object("{}", &obj, &err) && err.find("magic") != std::string::npos);
  uint32_t seed = 3;
  for (int i = 0; i < 20000; ++i) {
    std::string m = body;
    seed = seed * 1103515245u + 12345u;
    m[4 + (seed >> 8) % (m.size() - 4)] = static_cast<char>(seed >> 24);
    if (i % 3 == 0) m.resize(4 + (seed >> 5) % (m.size() - 4));
    k32::api::decode_protobuf_object(m, &obj, &err);
  }
  TEST_MAIN_END();
}
