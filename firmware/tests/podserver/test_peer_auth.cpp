// Who may call a node's pod server: the cluster token when there is one, a Node's
// InternalIP otherwise; and the ingress's removal of client-sent X-Kube32-* headers.
#include <string>
#include <vector>

#include "check.h"
#include "core/http/internal_headers.h"
#include "core/podserver/peer_auth.h"

using namespace k32;

static http::Request from(const std::string& ip, std::vector<http::Header> hs = {}) {
  http::Request rq;
  rq.peer_ip = ip;
  rq.headers = std::move(hs);
  return rq;
}

static void strips_every_internal_header_in_any_case() {
  std::vector<http::Header> hs{{"Host", "a"},           {"X-Kube32-Pod", "kube-system/secret"}, {"x-kube32-call-chain", "a/b"},
                               {"X-KUBE32-TOKEN", "t"}, {"X-Kube32", "not the prefix"},         {"X-Kube3", "short"},
                               {"Cookie", "c=1"}};
  CHECK_EQ(http::strip_internal_headers(&hs), 3u);
  CHECK_EQ(hs.size(), 4u);
  CHECK(hs[0].name == "Host" && hs[1].name == "X-Kube32" && hs[2].name == "X-Kube3" && hs[3].name == "Cookie");
  CHECK(http::is_internal_header("X-Kube32-Anything"));
  CHECK(!http::is_internal_header("X-Kube32"));
  CHECK(!http::is_internal_header("Y-Kube32-Pod"));
}

static void token_mode_requires_the_token_from_everyone() {
  std::string token = "s3cret";
  podserver::PeerAuth auth([&] { return token; }, {"127.0.0.2"}, nullptr, 1000);
  std::string why;
  // Even this node's own address needs the token: pods share their node's address.
  CHECK_EQ(auth.check(from("127.0.0.2"), 10, &why), 401);
  CHECK(why.find("missing") != std::string::npos);
  CHECK_EQ(auth.check(from("127.0.0.2", {{"X-Kube32-Token", "s3cres"}}), 10, &why), 401);
  CHECK(why.find("does not match") != std::string::npos);
  CHECK_EQ(auth.check(from("127.0.0.2", {{"X-Kube32-Token", "s3cret1"}}), 10, &why), 401);
  CHECK_EQ(auth.check(from("10.9.9.9", {{"x-kube32-token", "s3cret"}}), 10, &why), 0);
  // The token changes on the console: the new one counts at once.
  token = "n3w";
  CHECK_EQ(auth.check(from("10.9.9.9", {{"X-Kube32-Token", "s3cret"}}), 10, &why), 401);
  CHECK_EQ(auth.check(from("10.9.9.9", {{"X-Kube32-Token", "n3w"}}), 10, &why), 0);
}

static void without_token_only_node_addresses() {
  std::vector<std::string> nodes{"192.168.4.1", "192.168.4.2"};
  int listings = 0;
  podserver::PeerAuth auth([] { return std::string(); }, {"192.168.4.3"},
                           [&](std::vector<std::string>* out) {
                             ++listings;
                             *out = nodes;
                             return true;
                           },
                           1000);
  std::string why;
  CHECK_EQ(auth.check(from("192.168.4.3"), 5000, &why), 0);  // this node: no listing
  CHECK_EQ(listings, 0);
  CHECK_EQ(auth.check(from("192.168.4.2"), 5000, &why), 0);
  CHECK_EQ(listings, 1);
  CHECK_EQ(auth.check(from("192.168.4.1"), 5100, &why), 0);  // from the snapshot
  CHECK_EQ(listings, 1);
  CHECK_EQ(auth.check(from("192.168.4.77"), 5200, &why), 403);
  CHECK(why.find("192.168.4.77") != std::string::npos);
  CHECK_EQ(listings, 1);  // listed 200 ms ago: a stranger does not trigger another read
  CHECK_EQ(auth.check(from(""), 5200, &why), 403);
  // A node that joined is known after the refresh interval.
  nodes.push_back("192.168.4.77");
  CHECK_EQ(auth.check(from("192.168.4.77"), 6100, &why), 0);
  CHECK_EQ(listings, 2);
  // An unreadable API keeps the last list and refuses the unknown.
  podserver::PeerAuth down([] { return std::string(); }, {}, [](std::vector<std::string>*) { return false; }, 1000);
  CHECK_EQ(down.check(from("192.168.4.1"), 1, &why), 403);
}

int main() {
  strips_every_internal_header_in_any_case();
  token_mode_requires_the_token_from_everyone();
  without_token_only_node_addresses();
  TEST_MAIN_END();
}
