// One thread per node delivers channel messages to the pods' k32_event, instead of one
// thread per pod: each such thread held its own stack (events_stack plus an in-process
// call's, about 22 KiB of a classic ESP32 worker's heap per pod). Every subscription the
// kubelet makes signals the same waker, so a message for any pod wakes the one thread.
// Subscriptions take turns, one message each, so a pod whose topics are busy cannot hold
// the others back; each subscription's messages still arrive in the order published (a
// single thread delivers them). A pod whose instance is busy (serving a request) is passed
// over rather than waited for: its message goes back in front of its queue and is offered
// again when a call ends, until the call deadline (counted from its first offer, as a
// call's wait for its turn is) drops it. Queue caps and drops stay the hub's.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/channels/channel_hub.h"
#include "port.h"

namespace k32 {
namespace kubelet {

class EventDelivery {
 public:
  enum class Result : uint8_t {
    Done,  // delivered (or refused by the pod: it is not taken again)
    Busy,  // the pod's instance is in another call: offered again later
    Gone,  // the pod is not running here or is stopping: its subscription is dropped
  };
  // Delivers one message to the pod `key`: the guest call, holding the pod's instance, ended
  // by `deadline_ms` (port::monotonic_ms()); Busy without waiting when the instance is held.
  using DeliverFn = Result (*)(void* ctx, const std::string& key, const channels::Message& m, uint64_t deadline_ms);

  EventDelivery(DeliverFn deliver, void* ctx, uint32_t stack_bytes, port::Region stack_region, uint32_t deadline_ms)
      : deliver_(deliver), ctx_(ctx), stack_bytes_(stack_bytes), stack_region_(stack_region), deadline_ms_(deadline_ms) {}
  // Waits for the thread to end (tests; a node's kubelet lives as long as the node).
  ~EventDelivery();
  EventDelivery(const EventDelivery&) = delete;
  EventDelivery& operator=(const EventDelivery&) = delete;

  // What the subscriptions served here must be made with (channels::Hub::subscribe).
  channels::Waker* waker() { return &waker_; }
  // Serves `sub` for the pod `key`, in place of `old` when the pod had one (its topics grew);
  // starts the thread when none runs. False (nothing added) when the thread cannot start.
  bool add(const std::string& key, const std::shared_ptr<channels::Subscription>& sub,
           const std::shared_ptr<channels::Subscription>& old = nullptr);
  // Stops serving `sub` (its pod stopped); a message of it being delivered still finishes.
  void remove(const std::shared_ptr<channels::Subscription>& sub);
  // A pod's call ended: pods passed over as busy get another turn (one atomic load when
  // none was; called on every request's way out).
  void retry() {
    if (any_waiting_.load(std::memory_order_relaxed)) waker_.signal();
  }

  // The next message in turn: from the first subscription after the last one served that
  // has one queued and whose pod was not found busy since the last wake; *deadline_ms is
  // when its delivery must have ended. False when none has. The thread's step; public for
  // the tests.
  bool next(std::string* key, channels::Message* m, std::shared_ptr<channels::Subscription>* from, uint64_t* deadline_ms);
  size_t subscriptions();
  bool running();

 private:
  static void thread_main(void* self);
  void run();
  // What the step's delivery came to, for the entry of `from`.
  void settle(const std::shared_ptr<channels::Subscription>& from, Result r, channels::Message&& m);
  // How long the thread may sleep: until the first passed-over message's deadline, at most
  // a channel poll.
  uint32_t idle_ms();

  struct Entry {
    std::string key;
    std::shared_ptr<channels::Subscription> sub;
    uint64_t deadline_ms = 0;  // of its front message once offered (0: not offered yet)
    bool waiting = false;      // its pod was busy: skipped until the next wake
  };

  DeliverFn deliver_;
  void* ctx_;
  uint32_t stack_bytes_;
  port::Region stack_region_;
  uint32_t deadline_ms_;
  channels::Waker waker_;
  std::atomic<bool> any_waiting_{false};
  port::Mutex mu_;
  std::vector<Entry> entries_;  // under mu_
  size_t turn_ = 0;             // the entry asked first next time (under mu_)
  bool running_ = false;        // a thread serves entries_ (under mu_)
  bool closing_ = false;        // the destructor waits: the thread ends (under mu_)
};

}  // namespace kubelet
}  // namespace k32
