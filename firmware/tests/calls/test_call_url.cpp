// URL parsing, the name table, header rules and errno mapping of k32_http_call.
#include <cerrno>

#include "check.h"
#include "core/calls/call_client.h"
#include "core/calls/call_headers.h"
#include "core/calls/call_url.h"
#include "core/calls/http_exchange.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"

using namespace k32;
using calls::NameTarget;

int main() {
  calls::CallUrl u;
  std::string err;
  CHECK(calls::parse_call_url("http://Web.Default:8080/a/b?q=1", &u, &err));
  CHECK(!u.https);
  CHECK_EQ(u.host, "web.default");
  CHECK_EQ(u.port, 8080);
  CHECK_EQ(u.path, "/a/b?q=1");
  CHECK(calls::parse_call_url("https://example.com", &u, &err));
  CHECK(u.https && u.port == 0 && u.path == "/");
  CHECK(calls::parse_call_url("http://h?x=1", &u, &err));
  CHECK_EQ(u.path, "/?x=1");
  CHECK(calls::parse_call_url("http://example.com./", &u, &err));
  CHECK_EQ(u.host, "example.com");
  for (const char* bad : {"", "http:/x", "ftp://x", "http://", "http://:80/", "http://h:/", "http://h:0/", "http://h:65536/",
                          "http://u:p@h/", "http://h h/", "http://[::1]/", "http://a..b/", "http://.a/", "http://h/\r\n"}) {
    CHECK(!calls::parse_call_url(bad, &u, &err));
    CHECK(!err.empty());
  }

  // The resolution table.
  NameTarget t = calls::classify_host("web", "shop");
  CHECK(t.kind == NameTarget::Service && t.service == "web" && t.ns == "shop" && !t.outside_fallback);
  t = calls::classify_host("web.other", "shop");
  CHECK(t.kind == NameTarget::Service && t.ns == "other" && t.outside_fallback);
  t = calls::classify_host("web.other.svc", "shop");
  CHECK(t.kind == NameTarget::Service && t.ns == "other" && !t.outside_fallback);
  t = calls::classify_host("web.other.svc.cluster.local", "shop");
  CHECK(t.kind == NameTarget::Service && t.ns == "other" && !t.outside_fallback);
  CHECK(calls::classify_host("10.0.0.1", "shop").kind == NameTarget::Outside);
  CHECK(calls::classify_host("example.co.uk", "shop").kind == NameTarget::Outside);
  CHECK(calls::classify_host("a.b.svc.example", "shop").kind == NameTarget::Outside);

  // Headers.
  std::vector<http::Header> hs;
  CHECK(calls::parse_call_headers("A: 1\r\nB:2\r\nC:  3  ", &hs, &err));
  CHECK(hs.size() == 3 && hs[1].value == "2" && hs[2].value == "3");
  CHECK(!calls::parse_call_headers("no colon\r\n", &hs, &err));
  CHECK(!calls::parse_call_headers(": empty name\r\n", &hs, &err));
  CHECK(!calls::parse_call_headers("Bad Name: x\r\n", &hs, &err));
  CHECK(!calls::parse_call_headers("A: x\ny\r\n", &hs, &err));
  CHECK(calls::parse_call_headers("Content-Type: a\r\ncookie: b\r\nX-Request-Id: c\r\nAccept-Encoding: d\r\nX-Other: e\r\n"
                                  "Authorization: f\r\n",
                                  &hs, &err));
  CHECK_EQ(calls::headers_for_pod(hs).size(), 4u);
  std::vector<http::Header> out = calls::headers_for_outside({{"X-Kube32-Pod", "a"},
                                                              {"x-kube32-call-chain", "b"},
                                                              {"X-Kube32", "kept: no dash"},
                                                              {"Host", "h"},
                                                              {"content-length", "1"},
                                                              {"Connection", "x"},
                                                              {"Transfer-Encoding", "x"},
                                                              {"Keep-Alive", "x"},
                                                              {"Upgrade", "x"},
                                                              {"TE", "x"},
                                                              {"Trailer", "x"},
                                                              {"Expect", "x"},
                                                              {"Authorization", "kept"}});
  CHECK_EQ(out.size(), 2u);

  // Request heads.
  std::string head = calls::build_request_head("GET", "/p", "h:81", {{"A", "1"}}, 0);
  CHECK_EQ(head, "GET /p HTTP/1.1\r\nHost: h:81\r\nA: 1\r\nConnection: close\r\n\r\n");
  head = calls::build_request_head("POST", "/p", "h", {}, 0);
  CHECK(head.find("Content-Length: 0\r\n") != std::string::npos);
  CHECK(calls::valid_method("PATCH") && !calls::valid_method("get") && !calls::valid_method(""));

  // errno → return codes, timeouts.
  CHECK_EQ(calls::errno_to_k32(-ECONNREFUSED), K32_ERR_CONNREFUSED);
  CHECK_EQ(calls::errno_to_k32(-ETIMEDOUT), K32_ERR_TIMEOUT);
  CHECK_EQ(calls::errno_to_k32(-EHOSTUNREACH), K32_ERR_HOSTUNREACH);
  CHECK_EQ(calls::errno_to_k32(-ENETUNREACH), K32_ERR_HOSTUNREACH);
  CHECK_EQ(calls::errno_to_k32(-ECONNRESET), K32_ERR_IO);
  CHECK_EQ(calls::effective_timeout_ms(0), K32_CALL_TIMEOUT_DEFAULT_MS);
  CHECK_EQ(calls::effective_timeout_ms(1), 1u);
  CHECK_EQ(calls::effective_timeout_ms(K32_CALL_TIMEOUT_MAX_MS + 1), K32_CALL_TIMEOUT_MAX_MS);
  TEST_MAIN_END();
}
