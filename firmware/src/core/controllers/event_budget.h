// Events kept within the board's budget (events_kept, bytes of their JSON): when new or
// updated Events take the Events past it, the least recently written ones are deleted by the
// write that crossed it, before it returns (the store's after-write hook), so a burst of Events
// never holds more than the budget between two housekeeping passes.
// kube-apiserver keeps every Event for its --event-ttl (EVENT_TTL_S here too), but an hour of
// a busy cluster's Events is far more than a board's heap: every pod start and stop writes a
// few, so apps deleted and applied again would grow the control plane's heap for an hour.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

#include "core/store/object_store.h"
#include "port.h"

namespace k32 {
namespace controllers {

class EventBudget {
 public:
  EventBudget(store::ObjectStore* st, uint64_t max_bytes) : st_(st), max_(max_bytes) {}
  // Takes in the Events already stored (deleting the surplus when a smaller budget meets a
  // stored store), then follows every change (a store listener) and enforces the budget after
  // each Event write (an after-write hook).
  void install();
  // Deletes the least recently written Events until the rest fit; returns how many. Never
  // from the listener: a delete there would take the store's lock while its notification
  // lock is held, the reverse of every write's order (a deadlock with a concurrent write);
  // the after-write hook runs once both are released.
  int enforce();
  uint64_t bytes();  // what the Events kept take now, as counted

 private:
  struct Kept {
    std::string ns, name;
    uint32_t bytes;
  };
  void seen(const std::string& ns, const std::string& name, uint32_t bytes);  // mu_ held
  void forget(const std::string& ns, const std::string& name);                // mu_ held
  void on_change(const store::Event& ev);

  store::ObjectStore* st_;
  uint64_t max_;
  port::Mutex mu_;
  std::deque<Kept> order_;  // least recently written first
  uint64_t total_ = 0;
};

}  // namespace controllers
}  // namespace k32
