#include "core/kubelet/event_delivery.h"

#include "core/util/work_thread.h"
#include "k32_board.h"

namespace k32 {
namespace kubelet {

EventDelivery::~EventDelivery() {
  port::UniqueLock lock(mu_);
  closing_ = true;
  waker_.signal();
  ended_.wait(lock, [this] { return !running_; });
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

bool EventDelivery::next(std::string* key, channels::Message* m, std::shared_ptr<channels::Subscription>* from) {
  port::LockGuard<port::Mutex> lock(mu_);
  const size_t n = entries_.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t at = (turn_ + i) % n;
    if (!entries_[at].sub->try_next(m)) continue;
    *key = entries_[at].key;
    *from = entries_[at].sub;
    turn_ = (at + 1) % n;  // the next look starts after it: every other pod goes first
    return true;
  }
  return false;
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
    // Never holds mu_ while a pod's handler runs: the handler may subscribe (add) and the
    // kubelet may stop its pod (remove) meanwhile.
    if (next(&key, &m, &from)) {
      if (!deliver_(ctx_, key, m)) remove(from);
      continue;
    }
    {
      port::LockGuard<port::Mutex> lock(mu_);
      // Nothing left to serve: the stack goes back to the heap; the next add starts a thread.
      if (closing_ || entries_.empty()) {
        running_ = false;
        ended_.notify_all();
        return;
      }
    }
    // Every queued message, add and remove signals the waker; the timeout only bounds how
    // long a missed signal could keep a message waiting.
    waker_.wait(K32_CHANNEL_POLL_MS);
  }
}

}  // namespace kubelet
}  // namespace k32
