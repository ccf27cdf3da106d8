// Protobuf request bodies: a ConfigMap and a Service as kubectl encodes them, and arbitrary bytes.
#include <string>

#include "check.h"
#include "core/api/protobuf_body.h"

static std::string varint_field(int num, uint64_t v) {
  std::string out;
  out.push_back(static_cast<char>(num << 3));
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(static_cast<char>(b | (v ? 0x80 : 0)));
  } while (v);
  return out;
}

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
  CHECK_EQ(
      k32::json::dump(obj),
      std::string(
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"default","labels":{"app":"web"}},"data":{"k":"v"},"binaryData":{"b":"AQI="}})"));
  // A Service as `kubectl create service clusterip web --tcp=80:7000` sends it: Go's zero
  // values for omitempty fields (generateName "", nodePort 0) are on the wire and dropped.
  std::string svc_meta = field(1, "web") + field(2, "") + field(3, "") + field(11, field(1, "app") + field(2, "web"));
  std::string port = field(1, "80-7000") + field(2, "TCP") + varint_field(3, 80) +
                     field(4, varint_field(1, 0) + varint_field(2, 7000) + field(3, "")) + varint_field(5, 0);
  std::string spec = field(1, port) + field(2, field(1, "app") + field(2, "web")) + field(4, "ClusterIP");
  std::string svc_raw = field(1, svc_meta) + field(2, spec) + field(3, "");
  std::string svc = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "Service")) + field(2, svc_raw);
  CHECK(k32::api::decode_protobuf_object(svc, &obj, &err));
  CHECK_EQ(
      k32::json::dump(obj),
      std::string(
          R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"ports":[{"name":"80-7000","protocol":"TCP","port":80,"targetPort":7000}],"selector":{"app":"web"},"type":"ClusterIP"},"status":{}})"));
  // A named targetPort is the string form of IntOrString (type 1).
  std::string named = field(1, "http") + varint_field(3, 80) + field(4, varint_field(1, 1) + field(3, "web"));
  std::string svc2 = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "Service")) +
                     field(2, field(1, field(1, "n")) + field(2, field(1, named)));
  CHECK(k32::api::decode_protobuf_object(svc2, &obj, &err));
  CHECK_EQ(k32::json::dump(obj["spec"]["ports"]), std::string(R"([{"name":"http","port":80,"targetPort":"web"}])"));
  // A kind this server does not serve, and malformed envelopes, are refused with a reason.
  std::string job = std::string("k8s\0", 4) + field(1, field(1, "batch/v1") + field(2, "Job")) + field(2, "");
  bool unsupported = false;
  CHECK(!k32::api::decode_protobuf_object(job, &obj, &err, &unsupported) && unsupported &&
        err.find("does not serve batch/v1 Job") != std::string::npos);
  CHECK(!k32::api::decode_protobuf_object("{}", &obj, &err, &unsupported) && !unsupported &&
        err.find("magic") != std::string::npos);
  // A wire type that does not fit the schema (a string where port is an int32).
  std::string bad = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "Service")) +
                    field(2, field(2, field(1, field(3, "x"))));
  CHECK(!k32::api::decode_protobuf_object(bad, &obj, &err, &unsupported) && !unsupported &&
        err.find("port") != std::string::npos);
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
