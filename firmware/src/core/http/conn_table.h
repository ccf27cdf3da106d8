// The live connections of one HTTP server and who gives way when it is full. A connection
// that waits for a request (TLS handshake, nothing of a request arrived yet, kept alive
// between requests) holds a thread and a socket but does no work, so a new client may take
// its place: when the server holds its cap of connections, or the new client's address
// holds its own cap, the connection that has waited longest is closed. Only one that has
// waited at least `evict_idle_ms` with no bytes arrived gives way: a client that just
// connected or just got an answer is about to send its request, and a connection closed
// under a request loses it without an answer (HTTP clients never retry a POST). Busy
// connections (a request arriving or being answered, a watch) are never closed for room;
// when none can give way the new one is refused. Lock-free (atomics only): the accept
// thread admits and evicts, each connection thread moves its own slot between Waiting and
// Busy and frees it.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "port.h"

namespace k32 {
namespace http {

class ConnTable {
 public:
  // At most `live` connections, at most `per_client` of them from one address; a waiting
  // connection gives way only after `evict_idle_ms` without a byte of a request.
  void init(uint32_t live, uint32_t per_client, uint32_t evict_idle_ms);
  // What admit returns when no room can be made (every connection in the way is busy, has
  // bytes of a request arrived, or waited less than evict_idle_ms).
  static constexpr int kServerBusy = -1;  // the server's cap
  static constexpr int kClientBusy = -2;  // this client's own cap
  // Accept thread only. A slot for socket s from `peer` (in state Waiting), closing the
  // longest-waiting connection to make room when a cap is reached; kServerBusy or
  // kClientBusy when no room can be made.
  int admit(port::Socket s, const char* peer);
  // Accept thread only, when the heap cannot hold a new connection's thread: closes the
  // longest-waiting connection other than `spare` (the new one's slot), by the same rule as
  // admit (waited evict_idle_ms, nothing of a request arrived), so that its thread ends and
  // gives its stack back. False when none qualifies.
  bool evict_for_room(int spare) { return evict_oldest(nullptr, spare); }
  // Connection thread: the first bytes of a request arrived (from then on the connection is
  // not closed for room). False when the connection was closed to make room meanwhile
  // (then the request must not be served).
  bool to_busy(int slot);
  // Connection thread: the answer is sent; waiting for the next request from now on.
  void to_waiting(int slot);
  // Connection thread, before it closes its socket: nobody touches it afterwards.
  void release(int slot);
  uint32_t live() const;  // Waiting + Busy (for tests and logs)
  bool closing() const;   // a connection closed for room has not yet ended

 private:
  enum State : uint8_t { Free = 0, Waiting, Busy, Closing };
  struct Slot {
    std::atomic<uint8_t> state{Free};
    std::atomic<port::Socket> sock{port::kNoSocket};
    std::atomic<uint32_t> pins{0};   // evictors between reading `sock` and shutting it down
    std::atomic<uint32_t> since{0};  // monotonic ms (low 32 bits) it started waiting
    char peer[48] = {0};             // written and read by the accept thread only
    uint32_t arriving = 0;           // accept thread only: the evict call that saw bytes waiting
  };
  // Closes the longest-waiting connection (of `peer` when not null; never slot `spare`) that
  // waited evict_idle_ms with nothing to read; false when none qualifies.
  bool evict_oldest(const char* peer, int spare = -1);
  uint32_t live_cap_ = 0;
  uint32_t per_client_ = 0;
  uint32_t evict_idle_ms_ = 0;
  uint32_t evict_calls_ = 0;  // accept thread only
  uint32_t nslots_ = 0;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace http
}  // namespace k32
