#include "core/http/conn_table.h"

#include <cstring>

namespace k32 {
namespace http {

namespace {
uint32_t now32() { return static_cast<uint32_t>(port::monotonic_ms()); }
}  // namespace

void ConnTable::init(uint32_t live, uint32_t per_client, uint32_t evict_idle_ms) {
  live_cap_ = live ? live : 1;
  per_client_ = per_client ? per_client : 1;
  evict_idle_ms_ = evict_idle_ms;
  // Twice the cap: an evicted connection keeps its slot (Closing) for the moment its
  // thread needs to notice and leave, while its replacement already has one.
  nslots_ = live_cap_ * 2;
  slots_.reset(new Slot[nslots_]);
}

uint32_t ConnTable::live() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < nslots_; ++i) {
    uint8_t st = slots_[i].state.load();
    n += st == Waiting || st == Busy;
  }
  return n;
}

bool ConnTable::closing() const {
  for (uint32_t i = 0; i < nslots_; ++i) {
    if (slots_[i].state.load() == Closing) return true;
  }
  return false;
}

bool ConnTable::evict_oldest(const char* peer, int spare) {
  // Slots found with bytes waiting in this call are marked with its number: their request
  // is arriving (the thread marks them Busy as soon as it sees it), so they are passed over.
  const uint32_t call = ++evict_calls_;
  for (;;) {
    int victim = -1;
    uint32_t oldest_age = 0;
    uint32_t now = now32();
    for (uint32_t i = 0; i < nslots_; ++i) {
      Slot& sl = slots_[i];
      if (sl.state.load() != Waiting || static_cast<int>(i) == spare) continue;
      if (peer && std::strcmp(sl.peer, peer) != 0) continue;
      if (sl.arriving == call) continue;
      uint32_t age = now - sl.since.load();
      if (age < evict_idle_ms_) continue;
      if (victim < 0 || age >= oldest_age) {
        victim = static_cast<int>(i);
        oldest_age = age;
      }
    }
    if (victim < 0) return false;
    Slot& sl = slots_[victim];
    // Pinned before the socket is read: its thread cannot close it (and the number be
    // reused) until the check and the shutdown are done.
    sl.pins.fetch_add(1);
    port::Socket s = sl.sock.load();
    bool closed = false;
    if (s != port::kNoSocket && port::tcp_readable(s)) {
      sl.arriving = call;
    } else {
      uint8_t expect = Waiting;
      // Lost the race: the connection just got a request (Busy) or ended; look again.
      if (sl.state.compare_exchange_strong(expect, Closing)) {
        // Wakes the thread blocked in recv (end of stream); it then closes and frees the slot.
        if (s != port::kNoSocket) port::tcp_shutdown(s);
        closed = true;
      }
    }
    sl.pins.fetch_sub(1);
    if (closed) return true;
  }
}

int ConnTable::admit(port::Socket s, const char* peer) {
  uint32_t live_n = 0, mine = 0;
  for (uint32_t i = 0; i < nslots_; ++i) {
    uint8_t st = slots_[i].state.load();
    if (st != Waiting && st != Busy) continue;
    ++live_n;
    if (std::strcmp(slots_[i].peer, peer) == 0) ++mine;
  }
  if (mine >= per_client_) {
    if (!evict_oldest(peer)) return kClientBusy;
  } else if (live_n >= live_cap_) {
    if (!evict_oldest(nullptr)) return kServerBusy;
  }
  for (uint32_t i = 0; i < nslots_; ++i) {
    Slot& sl = slots_[i];
    if (sl.state.load() != Free) continue;
    std::strncpy(sl.peer, peer, sizeof sl.peer - 1);
    sl.peer[sizeof sl.peer - 1] = 0;
    sl.since.store(now32());
    sl.sock.store(s);
    sl.state.store(Waiting);
    return static_cast<int>(i);
  }
  return kServerBusy;  // every slot is still winding down: refuse rather than wait
}

bool ConnTable::to_busy(int slot) {
  uint8_t expect = Waiting;
  return slots_[slot].state.compare_exchange_strong(expect, Busy);
}

void ConnTable::to_waiting(int slot) {
  Slot& sl = slots_[slot];
  sl.since.store(now32());
  uint8_t expect = Busy;
  sl.state.compare_exchange_strong(expect, Waiting);
}

void ConnTable::release(int slot) {
  Slot& sl = slots_[slot];
  sl.sock.store(port::kNoSocket);
  // An evictor that read the socket before it was cleared is about to shut it down: the
  // socket must stay open (its number not reused) until it is done.
  while (sl.pins.load() != 0) port::sleep_ms(1);
  sl.state.store(Free);
}

}  // namespace http
}  // namespace k32
