// libFuzzer target: arbitrary bytes -> json::parse. An accepted document must survive
// serialisation: parse(dump(v)) and parse(dump_pretty(v)) give v again, and dump(v) is stable.
// Refusals must carry a message and an offset inside the input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/json/json.h"
#include "fuzz_check.h"

using namespace k32;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  json::Value v;
  json::ParseError err;
  if (!json::parse(reinterpret_cast<const char*>(data), size, &v, &err)) {
    FUZZ_CHECK(!err.message.empty(), "refusal without a message");
    FUZZ_CHECK(err.offset <= size, "error offset %zu past the input (%zu bytes)", err.offset, size);
    return 0;
  }
  std::string once = json::dump(v);
  json::Value back;
  json::ParseError err2;
  FUZZ_CHECK(json::parse(once, &back, &err2), "dump does not parse again: %s in %s", err2.message.c_str(), once.c_str());
  FUZZ_CHECK(back == v, "round trip changed the value: %s", once.c_str());
  FUZZ_CHECK(json::dump(back) == once, "dump is not stable: %s", once.c_str());
  json::Value pretty;
  FUZZ_CHECK(json::parse(json::dump_pretty(v), &pretty, &err2), "dump_pretty does not parse: %s", err2.message.c_str());
  FUZZ_CHECK(pretty == v, "pretty round trip changed the value: %s", once.c_str());
  return 0;
}
