// The API write path holds no reference into an object across an insert into that same
// object (an insert may move the object's members: the reference would then point at freed
// memory, and what was written through it would be lost). Bodies are parsed from JSON as a
// request's are, so their member lists are exactly full and any such insert moves them; the
// ASan build (K32_SANITIZE) reports the stale access itself, the checks below its effect.
#include <string>

#include "check.h"
#include "test_fixture.h"
#include "core/api/api_server.h"
#include "core/json/json.h"

using namespace k32;

int main() {
  k32test::ApiFixture fx;
  store::ObjectStore& st = fx.st;
  api::ApiServer& api = fx.api();
  const api::ResourceInfo* secret = api::find_by_kind("v1", "Secret");
  CHECK(secret != nullptr);
  if (!secret) TEST_MAIN_END();

  // A Secret with stringData only: preparing it inserts "data" into the object, after the
  // write path had looked up its metadata (it then set uid and creationTimestamp there).
  for (int members = 4; members <= 6; ++members) {
    std::string name = "s" + std::to_string(members);
    std::string body = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")" + name + R"("},"stringData":{"k":"v"})";
    if (members >= 5) body += R"(,"type":"Opaque")";
    if (members >= 6) body += R"(,"immutable":false)";
    body += "}";
    json::Value out;
    api::ApiError e = api.local_create(*secret, "default", k32test::parse_json(body), &out);
    CHECK(e.ok());
    json::Value got;
    CHECK(st.get("secrets", "default", name, &got));
    CHECK_EQ(got["metadata"]["uid"].str().size(), 36u);
    CHECK(!got["metadata"]["creationTimestamp"].str().empty());
    CHECK_EQ(got["data"]["k"].str(), std::string("dg=="));
    CHECK(got.find("stringData") == nullptr);
    // An update through the same path keeps the identity the stored object has.
    std::string upd = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")" + name + R"("},"stringData":{"k":"w"}})";
    json::Value old = got;
    e = api.local_update(*secret, old, k32test::parse_json(upd), "", &out);
    CHECK(e.ok());
    json::Value again;
    CHECK(st.get("secrets", "default", name, &again));
    CHECK_EQ(again["metadata"]["uid"].str(), got["metadata"]["uid"].str());
    CHECK_EQ(again["metadata"]["creationTimestamp"].str(), got["metadata"]["creationTimestamp"].str());
    CHECK_EQ(again["data"]["k"].str(), std::string("dw=="));
  }
  TEST_MAIN_END();
}
