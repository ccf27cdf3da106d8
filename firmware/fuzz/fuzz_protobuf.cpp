// libFuzzer target: arbitrary bytes -> api::decode_protobuf_object (the "k8s\0" runtime.Unknown
// bodies kubectl's typed clients send). An accepted body must decode to an object that
// serialises and parses back unchanged; a refusal must say why.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/api/protobuf_body.h"
#include "core/json/json.h"
#include "fuzz_check.h"

using namespace k32;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  json::Value v;
  std::string err;
  if (!api::decode_protobuf_object(body, &v, &err)) {
    FUZZ_CHECK(!err.empty(), "refusal without a message");
    return 0;
  }
  FUZZ_CHECK(v.is_object(), "decoded body is not an object");
  std::string once = json::dump(v);
  json::Value back;
  json::ParseError perr;
  FUZZ_CHECK(json::parse(once, &back, &perr), "decoded object does not parse as JSON: %s in %s", perr.message.c_str(),
             once.c_str());
  FUZZ_CHECK(back == v, "JSON round trip of the decoded object changed it: %s", once.c_str());
  return 0;
}
