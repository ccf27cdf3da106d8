// Channel topics on a node: publishers post JSON messages to a topic, subscribers (SSE
// streams, pods' k32_event) receive them in order. Bounded per subscriber: a slow reader
// loses the oldest messages, never blocks a publisher.
#pragma once
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>
#include "port.h"

namespace k32 {
namespace channels {

struct Message {
  std::string topic;
  std::string payload;  // JSON text
};

// Wakes one thread that serves many subscriptions (a node's event delivery): a message
// queued to any of them, or its close, signals it. The signal stays set until that thread
// waits again, so a message that arrives while it delivers another is never slept through.
class Waker {
 public:
  void signal();
  // Returns at once (clearing the signal) when signalled since the last wait; otherwise
  // waits up to timeout_ms for a signal. False when the time ran out.
  bool wait(uint32_t timeout_ms);

 private:
  port::Mutex mu_;
  port::CondVar cv_;
  bool signalled_ = false;
};

class Subscription {
 public:
  // Waits up to timeout_ms for a message; false on timeout or when closed.
  bool next(Message* out, uint32_t timeout_ms);
  // The oldest queued message, without waiting; false when none is queued.
  bool try_next(Message* out);
  // Puts a message taken with try_next back in front (its reader could not take it yet).
  // It is the oldest: when the queue filled up meanwhile, it is the one dropped (false).
  bool put_back(Message&& m);
  void close();
  bool closed();
  uint64_t dropped() const { return dropped_; }

 private:
  friend class Hub;
  std::vector<std::string> topics_;
  port::Mutex mu_;
  port::CondVar cv_;
  std::deque<Message> queue_;
  bool closed_ = false;
  uint64_t dropped_ = 0;
  Waker* waker_ = nullptr;  // set before the hub lists it, never changed
  static constexpr size_t kQueue = 64;
};

class Hub {
 public:
  // `waker` (may be null) is signalled with every message queued to this subscription.
  std::shared_ptr<Subscription> subscribe(const std::vector<std::string>& topics, Waker* waker = nullptr);
  void unsubscribe(const std::shared_ptr<Subscription>& s);
  // Returns how many subscribers received it.
  size_t publish(const std::string& topic, const std::string& payload);
  size_t subscribers(const std::string& topic);
  // The union of every subscription's topics (what a worker asks the control plane for).
  std::set<std::string> topics();
  // Called after every subscribe (outside the hub's lock); set once, before any subscribe.
  // A worker starts its relay from the control plane here, so no thread waits while no one
  // subscribes.
  void on_subscribe(std::function<void()> fn) { on_subscribe_ = std::move(fn); }

 private:
  port::Mutex mu_;
  std::vector<std::shared_ptr<Subscription>> subs_;
  std::function<void()> on_subscribe_;
};

}  // namespace channels
}  // namespace k32
