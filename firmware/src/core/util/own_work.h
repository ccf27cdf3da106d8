// The node's own work (its API exchanges: the kubelet's sync pages, status writes and Events,
// a container's start reads, the heartbeat's Node and Lease) holds heap for a moment beside
// the pods (the console's STATUS answer holds under 1 KiB and does not take a turn). Threads,
// pods and connections are refused when they would take the node's heap_reserve, so the
// reserve is what that work has; each piece fits it, but several at once did not (a sync page,
// a heartbeat and a console answer together were about 52 KiB against the classic ESP32's 20).
// The pieces therefore take turns: each holds the node's one own-work gate while it holds its
// heap, and the reserve only ever has one of them.
//
// Rules that keep the gate free of deadlocks: take it around one piece (an HTTP exchange and
// the parse of its reply, an answer built and sent), never while waiting on another thread
// (a runner's end, a pod's call, a lock held across such a wait); the pieces run nothing that
// waits on them. The same thread may take it again inside a piece (it is recursive).
#pragma once
#include <cstddef>
#include <cstdint>

#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace util {

// The gate itself, for a caller that needs the lock object (LockGuard<port::RecursiveMutex>).
port::RecursiveMutex& own_work_gate();

// Holds the gate for its scope: `util::OwnWorkTurn turn;` around one piece of own work.
class OwnWorkTurn {
 public:
  OwnWorkTurn() { own_work_gate().lock(); }
  ~OwnWorkTurn() { own_work_gate().unlock(); }
  OwnWorkTurn(const OwnWorkTurn&) = delete;
  OwnWorkTurn& operator=(const OwnWorkTurn&) = delete;
};

// Whether the heap can take `bytes` more now (internal RAM, or PSRAM past it where the board
// has it, as an ordinary allocation spills). Inside a turn the reserve is this piece's, so it
// needs no reserve on top: only that the allocation cannot stop the node.
inline bool heap_holds(uint64_t bytes) { return port::mem_available(port::Region::Any) >= bytes; }

// Whether a JSON text of `text_bytes` can be parsed now: its tree takes about
// JSON_TREE_HEAP_FACTOR times its bytes. A reply that cannot is refused (-ENOMEM, the caller
// retries) instead of an allocation that would stop the node mid-parse.
inline bool heap_holds_json(size_t text_bytes) { return heap_holds(uint64_t{text_bytes} * K32_JSON_TREE_HEAP_FACTOR); }

}  // namespace util
}  // namespace k32
