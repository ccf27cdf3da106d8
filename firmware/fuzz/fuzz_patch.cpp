// libFuzzer target: the PATCH engines. The input is JSON text [doc, patch, kind?] (kind a
// schema key such as "v1/Pod"; without it the kind cycles through a few built-ins), so the
// fuzzer mutates real documents and patches. Runs JSON Patch, JSON Merge Patch, strategic
// merge patch and server-side apply on it. Checks: a failed JSON Patch leaves its output
// alone; merge patch is idempotent; every result serialises and parses back unchanged (the
// API stores results as JSON and reads them again).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/json/json.h"
#include "core/patch/patch.h"
#include "fuzz_check.h"

using namespace k32;
using json::Value;

namespace {
const char* const kKinds[] = {"v1/Pod", "apps/v1/Deployment", "v1/ConfigMap", "v1/Service", "networking.k8s.io/v1/Ingress"};

void check_round_trip(const Value& v, const char* what) {
  std::string text = json::dump(v);
  Value back;
  json::ParseError err;
  FUZZ_CHECK(json::parse(text, &back, &err), "%s result does not parse again: %s", what, err.message.c_str());
  FUZZ_CHECK(back == v, "%s result changed in a JSON round trip", what);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Value in;
  json::ParseError perr;
  if (!json::parse(reinterpret_cast<const char*>(data), size, &in, &perr)) return 0;
  if (!in.is_array() || in.size() < 2) return 0;
  const Value& doc = in.items()[0];
  const Value& p = in.items()[1];
  std::string kind = in.size() > 2 && in.items()[2].is_string() ? in.items()[2].str()
                                                                : kKinds[size % (sizeof kKinds / sizeof *kKinds)];
  std::string err;

  Value out("untouched");
  if (patch::json_patch(doc, p, &out, &err)) {
    check_round_trip(out, "JSON Patch");
  } else {
    FUZZ_CHECK(out == Value("untouched"), "a failed JSON Patch changed its output");
    FUZZ_CHECK(!err.empty(), "JSON Patch refusal without a message");
  }

  Value once, twice;
  patch::merge_patch(doc, p, &once);
  patch::merge_patch(once, p, &twice);
  FUZZ_CHECK(once == twice, "merge patch is not idempotent: %s then %s", json::dump(once).c_str(), json::dump(twice).c_str());
  check_round_trip(once, "merge patch");

  Value smp;
  err.clear();
  if (patch::strategic_merge(kind, doc, p, &smp, &err)) check_round_trip(smp, "strategic merge");
  else FUZZ_CHECK(!err.empty(), "strategic merge refusal without a message");

  patch::ApplyResult applied;
  err.clear();
  if (p.is_object() && patch::server_side_apply(kind, doc.is_object() ? doc : Value(), p, "fuzz", false, &applied, &err))
    check_round_trip(applied.object, "server-side apply");
  return 0;
}
