#include "core/kubelet/event_delivery.h"

#include <algorithm>

#include "core/util/work_thread.h"
#include "k32_board.h"

namespace k32 {
namespace kubelet {

EventDelivery::~EventDelivery() {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    closing_ = true;
  }
  waker_.signal();
  // Polled: a condition variable here would be heap every node holds for the tests' sake.
  while (running()) port::sleep_ms(1);
}

bool EventDelivery::add(const std::string& key, const std::shared_ptr<channels::Subscription>& sub,
                        const std::shared_ptr<channels::Subscription>& old) {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    if (closing_) return false;
    // Started before the entry is listed, under the same lock: the new thread's first look
    // waits for it, and a thread that could not start leaves nothing behind.
    if (!running_) {
      if (!util::start_work_thread("k32_events", stack_bytes_, stack_region_, &EventDelivery::thread_main, this)) return false;
      running_ = true;
    }
    Entry* slot = nullptr;
    if (old)
      for (auto& e : entries_)
        if (e.sub == old) slot = &e;
    if (slot) {
      // The pod's topics grew: its place in the turn order stays.
      slot->key = key;
      slot->sub = sub;
    } else {
      entries_.push_back(Entry{key, sub});
    }
  }
  waker_.signal();  // messages may have been queued before it was listed
  return true;
}

void EventDelivery::remove(const std::shared_ptr<channels::Subscription>& sub) {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].sub != sub) continue;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      // The entry that was next in turn stays next.
      if (i < turn_) --turn_;
      if (turn_ >= entries_.size()) turn_ = 0;
      break;
    }
  }
  waker_.signal();  // the thread ends when nothing is left to serve
}

bool EventDelivery::next(std::string* key, channels::Message* m, std::shared_ptr<channels::Subscription>* from,
                         uint64_t* deadline_ms) {
  port::LockGuard<port::Mutex> lock(mu_);
  const size_t n = entries_.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t at = (turn_ + i) % n;
    Entry& e = entries_[at];
    if (e.waiting || !e.sub->try_next(m)) continue;
    if (!e.deadline_ms) e.deadline_ms = port::monotonic_ms() + deadline_ms_;
    *key = e.key;
    *from = e.sub;
    *deadline_ms = e.deadline_ms;
    turn_ = (at + 1) % n;  // the next look starts after it: every other pod goes first
    return true;
  }
  return false;
}

void EventDelivery::settle(const std::shared_ptr<channels::Subscription>& from, Result r, channels::Message&& m) {
  if (r == Result::Gone) {
    remove(from);
    return;
  }
  port::LockGuard<port::Mutex> lock(mu_);
  for (auto& e : entries_) {
    if (e.sub != from) continue;
    // Back in front, so the pod's order holds; the others go on meanwhile.
    if (r == Result::Busy && port::monotonic_ms() < e.deadline_ms && from->put_back(std::move(m))) {
      e.waiting = true;
      any_waiting_.store(true, std::memory_order_relaxed);
    } else {
      // Delivered; or its pod stayed busy past the deadline, or its queue filled up
      // meanwhile: dropped, and the next message's deadline starts when it is offered.
      e.deadline_ms = 0;
    }
    return;
  }
}

uint32_t EventDelivery::idle_ms() {
  port::LockGuard<port::Mutex> lock(mu_);
  uint64_t ms = K32_CHANNEL_POLL_MS;
  const uint64_t now = port::monotonic_ms();
  for (const auto& e : entries_)
    if (e.waiting) ms = e.deadline_ms <= now ? 0 : std::min<uint64_t>(ms, e.deadline_ms - now);
  return static_cast<uint32_t>(ms);
}

size_t EventDelivery::subscriptions() {
  port::LockGuard<port::Mutex> lock(mu_);
  return entries_.size();
}

bool EventDelivery::running() {
  port::LockGuard<port::Mutex> lock(mu_);
  return running_;
}

void EventDelivery::thread_main(void* self) { static_cast<EventDelivery*>(self)->run(); }

void EventDelivery::run() {
  for (;;) {
    std::string key;
    channels::Message m;
    std::shared_ptr<channels::Subscription> from;
    uint64_t deadline = 0;
    // Never holds mu_ while a pod's handler runs: the handler may subscribe (add) and the
    // kubelet may stop its pod (remove) meanwhile.
    if (next(&key, &m, &from, &deadline)) {
      settle(from, deliver_(ctx_, key, m, deadline), std::move(m));
      continue;
    }
    {
      port::LockGuard<port::Mutex> lock(mu_);
      // Nothing left to serve: the stack goes back to the heap; the next add starts a thread.
      if (closing_ || entries_.empty()) {
        running_ = false;
        return;
      }
    }
    // Every queued message, add, remove and ended call signals the waker; the timeout only
    // bounds how long a missed signal could keep a message waiting, or ends a passed-over
    // message's wait at its deadline.
    waker_.wait(idle_ms());
    // Pods passed over as busy get another turn after every wake.
    port::LockGuard<port::Mutex> lock(mu_);
    any_waiting_.store(false, std::memory_order_relaxed);
    for (auto& e : entries_) e.waiting = false;
  }
}

}  // namespace kubelet
}  // namespace k32
