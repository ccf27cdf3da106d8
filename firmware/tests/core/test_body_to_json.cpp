// Request bodies that are not JSON become JSON on the way in (YAML, protobuf). What has no JSON
// form -- bytes that are not UTF-8, numbers past a double's range -- would be written to the
// store as a record it cannot read back (or reads back as something else). Both decoders
// refuse such bodies, with a reason.
#include <string>

#include "check.h"
#include "core/api/protobuf_body.h"
#include "core/json/json.h"
#include "core/util/text.h"
#include "core/yaml/yaml.h"

using namespace k32;

static std::string field(int num, const std::string& bytes) {
  std::string out;
  out.push_back(static_cast<char>((num << 3) | 2));
  out.push_back(static_cast<char>(bytes.size()));  // all payloads here are < 128 bytes
  return out + bytes;
}

static std::string configmap_body(const std::string& name, const std::string& key, const std::string& value) {
  std::string raw = field(1, field(1, name)) + field(2, field(1, key) + field(2, value));
  return std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "ConfigMap")) + field(2, raw);
}

int main() {
  // The validator itself: well-formed sequences pass; overlongs, surrogates, stray
  // continuation bytes, truncation and code points past U+10FFFF do not.
  CHECK(text::valid_utf8("plain ascii"));
  CHECK(text::valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK(!text::valid_utf8("\xff"));
  CHECK(!text::valid_utf8("\xc0\xaf"));          // overlong '/'
  CHECK(!text::valid_utf8("\xed\xa0\x80"));      // surrogate U+D800
  CHECK(!text::valid_utf8("\xf4\x90\x80\x80"));  // U+110000
  CHECK(!text::valid_utf8("\x80"));
  CHECK(!text::valid_utf8("\xe2\x82"));  // truncated

  json::Value v;
  std::string err;
  // YAML: plain, single-quoted and block scalars copy bytes as they are.
  CHECK(yaml::to_json("data:\n  k: caf\xc3\xa9\n", &v, &err));
  CHECK(!yaml::to_json("data:\n  k: caf\xe9\n", &v, &err));
  CHECK(err.find("line 2") != std::string::npos && err.find("UTF-8") != std::string::npos);
  CHECK(!yaml::to_json("data:\n  k: 'a\xff'\n", &v, &err));
  CHECK(!yaml::to_json("data:\n  k: |\n    \xc0\xaf\n", &v, &err));
  CHECK(!yaml::to_json("\xfe\xff: x\n", &v, &err));

  // YAML numbers past a double's range (infinity would be stored as null).
  CHECK(!yaml::to_json("spec:\n  port: 41e3180\n", &v, &err));
  CHECK(err.find("line 2") != std::string::npos && err.find("out of range") != std::string::npos);
  CHECK(!yaml::to_json("a: [1, -2e999]\n", &v, &err));
  CHECK(yaml::to_json("a: 1.5e3\n", &v, &err) && v["a"].as_double() == 1500);

  // A block scalar line left of the block's first line: an error (it used to take the node
  // down: a string of negative length).
  CHECK(!yaml::to_json("a:\n  b: |\n      one\n    two\n", &v, &err));
  CHECK(err.find("line 4") != std::string::npos);
  CHECK(yaml::to_json("a: |\n  one\n    two\n", &v, &err) && v["a"].as_string() == "one\n  two\n");

  // Protobuf: strings (names, keys, values) must be UTF-8; bytes (binaryData, Secret data) may
  // be anything, as they are base64 in JSON.
  CHECK(api::decode_protobuf_object(configmap_body("cm", "k", "caf\xc3\xa9"), &v, &err));
  CHECK(!api::decode_protobuf_object(configmap_body("cm", "k", "caf\xe9"), &v, &err));
  CHECK(err.find("UTF-8") != std::string::npos);
  CHECK(!api::decode_protobuf_object(configmap_body("c\xff", "k", "v"), &v, &err));
  CHECK(!api::decode_protobuf_object(configmap_body("cm", "\x80", "v"), &v, &err));
  std::string binary = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "ConfigMap")) +
                       field(2, field(1, field(1, "cm")) + field(3, field(1, "b") + field(2, "\xff\xfe")));
  CHECK(api::decode_protobuf_object(binary, &v, &err));
  CHECK_EQ(v["binaryData"]["b"].as_string(), std::string("//4="));
  // Whatever a decoder accepts is JSON that reads back unchanged.
  json::Value back;
  json::ParseError pe;
  CHECK(json::parse(json::dump(v), &back, &pe) && back == v);

  // Field number 0 does not exist: the body is malformed, not a message that ends there.
  std::string zero = configmap_body("cm", "k", "v");
  zero += std::string("\x02\x00", 2);  // tag 0, wire type 2, empty
  CHECK(!api::decode_protobuf_object(zero, &v, &err));
  // A malformed TypeMeta is refused, not read as far as it goes.
  std::string bad_tm = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "ConfigMap") + "\x1a\x7f") +
                       field(2, field(1, field(1, "cm")));
  CHECK(!api::decode_protobuf_object(bad_tm, &v, &err));
  TEST_MAIN_END();
}
