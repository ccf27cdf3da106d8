#include "core/podserver/peer_auth.h"

#include <algorithm>

namespace k32 {
namespace podserver {

bool token_matches(const std::string& given, const std::string& token) {
  if (given.size() != token.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned>(given[i] ^ token[i]);
  return diff == 0;
}

bool PeerAuth::is_node_ip(const std::string& ip, uint64_t now_ms) {
  if (ip.empty()) return false;
  if (std::find(always_.begin(), always_.end(), ip) != always_.end()) return true;
  auto known = [&ip](const std::shared_ptr<const std::vector<std::string>>& list) {
    return list && std::find(list->begin(), list->end(), ip) != list->end();
  };
  std::shared_ptr<const std::vector<std::string>> snapshot;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    snapshot = ips_;
    // Unknown: list the Nodes again unless that happened within refresh_ms (or another
    // request is listing right now: its answer is what this one would get).
    if (known(snapshot)) return true;
    if (!list_ || listing_ || (listed_ms_ != 0 && now_ms - listed_ms_ < refresh_ms_)) return false;
    listing_ = true;
  }
  std::vector<std::string> fresh;
  bool ok = list_(&fresh);
  port::LockGuard<port::Mutex> lock(mu_);
  if (ok) ips_ = std::make_shared<const std::vector<std::string>>(std::move(fresh));
  listed_ms_ = now_ms ? now_ms : 1;
  listing_ = false;
  return ok && known(ips_);
}

int PeerAuth::check(const http::Request& rq, uint64_t now_ms, std::string* why) {
  const std::string token = token_ ? token_() : std::string();
  if (!token.empty()) {
    const std::string* given = rq.header(kTokenHeader);
    if (!given || !token_matches(*given, token)) {
      *why = std::string("the pod server serves nodes of the cluster only: ") + kTokenHeader +
             (given ? " does not match the cluster token" : " (the cluster token) is missing");
      return 401;
    }
    return 0;
  }
  if (!is_node_ip(rq.peer_ip, now_ms)) {
    *why = "the pod server serves nodes of the cluster only: " + rq.peer_ip + " is not the InternalIP of a Node";
    return 403;
  }
  return 0;
}

}  // namespace podserver
}  // namespace k32
