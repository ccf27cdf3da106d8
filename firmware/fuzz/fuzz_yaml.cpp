// libFuzzer target: arbitrary bytes -> yaml::to_json (application/yaml request bodies). An
// accepted document must be a JSON value that serialises and parses back unchanged (the API
// stores it as JSON); a refusal must say why.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/json/json.h"
#include "core/yaml/yaml.h"
#include "fuzz_check.h"

using namespace k32;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  json::Value v;
  std::string err;
  if (!yaml::to_json(text, &v, &err)) {
    FUZZ_CHECK(!err.empty(), "refusal without a message");
    return 0;
  }
  std::string once = json::dump(v);
  json::Value back;
  json::ParseError perr;
  FUZZ_CHECK(json::parse(once, &back, &perr), "YAML result does not parse as JSON: %s in %s", perr.message.c_str(), once.c_str());
  FUZZ_CHECK(back == v, "JSON round trip of the YAML result changed it: %s", once.c_str());
  return 0;
}
