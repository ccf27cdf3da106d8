// Set-up the firmware unit tests share: JSON objects written as literals, the heap in use (for
// tests of what something costs or gives back), and an in-memory store holding the "default"
// namespace behind an API server (the state a controller or an in-process write starts
// from). A set-up step that fails is a failed check of the test.
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "check.h"
#include "core/api/api_server.h"
#include "core/json/json.h"
#include "port.h"

namespace k32test {

// A test's JSON literal; a typo in it is reported (and gives null, which the test's own
// checks then fail on).
inline k32::json::Value parse_json(const std::string& s) {
  k32::json::Value v;
  k32::json::ParseError pe;
  if (!k32::json::parse(s, &v, &pe)) std::fprintf(stderr, "bad test JSON: %s\n", pe.message.c_str());
  return v;
}

// Bytes of heap in use now, in every region (internal RAM and PSRAM alike).
inline uint64_t heap_in_use() {
  k32::port::MemStats m = k32::port::mem_stats();
  return m.internal_in_use + m.psram_in_use;
}

// An opened in-memory store with the "default" namespace, and an API server over it.
struct ApiFixture {
  k32::store::ObjectStore st;
  std::unique_ptr<k32::api::ApiServer> server;  // made once the store is open

  ApiFixture() {
    std::string err;
    CHECK(st.open("", &err));
    k32::json::Value stored;
    CHECK(st.create("namespaces", "", "default",
                    parse_json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"}}"),
                    &stored) == k32::store::Result::Ok);
    server.reset(new k32::api::ApiServer(&st, k32::api::ApiConfig()));
  }
  k32::api::ApiServer& api() { return *server; }
};

}  // namespace k32test
