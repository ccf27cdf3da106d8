// One thread per node delivers channel messages to the pods' k32_event, instead of one
// thread per pod: each such thread held its own stack (events_stack plus an in-process
// call's, about 22 KiB of a classic ESP32 worker's heap per pod). Every subscription the
// kubelet makes signals the same waker, so a message for any pod wakes the one thread.
// Subscriptions take turns, one message each, so a pod whose topics are busy cannot hold
// the others back; each subscription's messages still arrive in the order published (a
// single thread delivers them). Queue caps and drops stay the hub's, per subscription.
#pragma once
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
  // Delivers one message to the pod `key` (the guest call, with the pod's lock and deadline).
  // False when the pod is gone (not running here, or stopping): its subscription is dropped.
  using DeliverFn = bool (*)(void* ctx, const std::string& key, const channels::Message& m);

  EventDelivery(DeliverFn deliver, void* ctx, uint32_t stack_bytes, port::Region stack_region)
      : deliver_(deliver), ctx_(ctx), stack_bytes_(stack_bytes), stack_region_(stack_region) {}
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

  // The next message in turn: from the first subscription after the last one served that
  // has one queued. False when none has. The thread's step; public for the tests.
  bool next(std::string* key, channels::Message* m, std::shared_ptr<channels::Subscription>* from);
  size_t subscriptions();
  bool running();

 private:
  static void thread_main(void* self);
  void run();

  struct Entry {
    std::string key;
    std::shared_ptr<channels::Subscription> sub;
  };

  DeliverFn deliver_;
  void* ctx_;
  uint32_t stack_bytes_;
  port::Region stack_region_;
  channels::Waker waker_;
  port::Mutex mu_;
  port::CondVar ended_;
  std::vector<Entry> entries_;  // under mu_
  size_t turn_ = 0;             // the entry asked first next time (under mu_)
  bool running_ = false;        // a thread serves entries_ (under mu_)
  bool closing_ = false;        // the destructor waits: the thread ends (under mu_)
};

}  // namespace kubelet
}  // namespace k32
