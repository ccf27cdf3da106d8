// tcp_peer_same_user on Linux: the client's end of a loopback connection is a socket of
// this host, listed in /proc/net/tcp (or tcp6 for an IPv4-mapped client) with the uid of
// its owner. The entry whose local address is our peer and whose remote address is us is
// the client's socket.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "port.h"

namespace k32 {
namespace port {

namespace {

// "0100007F:1F90" as the kernel prints an IPv4 endpoint (address word as stored, port in
// host order); the tcp6 form of an IPv4-mapped address is the same word behind ::ffff:.
void endpoint_hex(const sockaddr_in& a, bool v6, char* out, size_t cap) {
  if (v6)
    std::snprintf(out, cap, "0000000000000000FFFF0000%08X:%04X", static_cast<unsigned>(a.sin_addr.s_addr),
                  static_cast<unsigned>(ntohs(a.sin_port)));
  else std::snprintf(out, cap, "%08X:%04X", static_cast<unsigned>(a.sin_addr.s_addr), static_cast<unsigned>(ntohs(a.sin_port)));
}

// 1: found and owned by `uid`; 0: found, another owner; -1: not in this table.
int owner_in(const char* table, const sockaddr_in& peer, const sockaddr_in& self, bool v6, uid_t uid) {
  FILE* f = std::fopen(table, "r");
  if (!f) return -1;
  char want_local[64], want_remote[64];
  endpoint_hex(peer, v6, want_local, sizeof want_local);
  endpoint_hex(self, v6, want_remote, sizeof want_remote);
  char line[512];
  int found = -1;
  if (!std::fgets(line, sizeof line, f)) {  // the header line
    std::fclose(f);
    return -1;
  }
  while (found < 0 && std::fgets(line, sizeof line, f)) {
    char local[64], remote[64];
    unsigned long entry_uid = 0;
    // sl local rem st tx:rx tr:when retrnsmt uid ...
    if (std::sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %lu", local, remote, &entry_uid) != 3) continue;
    if (std::strcmp(local, want_local) == 0 && std::strcmp(remote, want_remote) == 0)
      found = entry_uid == static_cast<unsigned long>(uid) ? 1 : 0;
  }
  std::fclose(f);
  return found;
}

}  // namespace

bool tcp_peer_same_user(Socket s) {
  sockaddr_in peer{}, self{};
  socklen_t pl = sizeof peer, sl = sizeof self;
  if (getpeername(s, reinterpret_cast<sockaddr*>(&peer), &pl) != 0 || peer.sin_family != AF_INET) return false;
  if (getsockname(s, reinterpret_cast<sockaddr*>(&self), &sl) != 0 || self.sin_family != AF_INET) return false;
  uid_t uid = geteuid();
  int r = owner_in("/proc/net/tcp", peer, self, false, uid);
  if (r < 0) r = owner_in("/proc/net/tcp6", peer, self, true, uid);
  return r == 1;
}

}  // namespace port
}  // namespace k32
