#include "core/channels/channel_hub.h"
#include "port.h"

namespace k32 {
namespace channels {

void Waker::signal() {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    signalled_ = true;
  }
  cv_.notify_all();
}

bool Waker::wait(uint32_t timeout_ms) {
  port::UniqueLock lock(mu_);
  const bool got = cv_.wait_for(lock, timeout_ms, [&] { return signalled_; });
  signalled_ = false;
  return got;
}

bool Subscription::try_next(Message* out) {
  port::LockGuard<port::Mutex> lock(mu_);
  if (queue_.empty()) return false;
  *out = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

bool Subscription::put_back(Message&& m) {
  port::LockGuard<port::Mutex> lock(mu_);
  if (queue_.size() >= kQueue) {
    ++dropped_;
    return false;
  }
  queue_.push_front(std::move(m));
  return true;
}

bool Subscription::next(Message* out, uint32_t timeout_ms) {
  port::UniqueLock lock(mu_);
  cv_.wait_for(lock, timeout_ms, [&] { return closed_ || !queue_.empty(); });
  if (queue_.empty()) return false;
  *out = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

void Subscription::close() {
  port::LockGuard<port::Mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
  if (waker_) waker_->signal();
}

bool Subscription::closed() {
  port::LockGuard<port::Mutex> lock(mu_);
  return closed_;
}

std::shared_ptr<Subscription> Hub::subscribe(const std::vector<std::string>& topics, Waker* waker) {
  auto s = std::make_shared<Subscription>();
  s->topics_ = topics;
  s->waker_ = waker;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    subs_.push_back(s);
  }
  if (on_subscribe_) on_subscribe_();
  return s;
}

void Hub::unsubscribe(const std::shared_ptr<Subscription>& s) {
  port::LockGuard<port::Mutex> lock(mu_);
  for (auto it = subs_.begin(); it != subs_.end(); ++it) {
    if (*it == s) {
      subs_.erase(it);
      break;
    }
  }
}

size_t Hub::publish(const std::string& topic, const std::string& payload) {
  // Delivered under the hub's lock, without collecting the subscribers first (a vector and a
  // reference count per subscriber, per message): nothing takes a subscription's lock and
  // then the hub's, so holding both in this order cannot deadlock (a waker's lock is taken
  // last of all, and its holder takes no other).
  size_t delivered = 0;
  port::LockGuard<port::Mutex> hub_lock(mu_);
  for (const auto& s : subs_) {
    bool wants = false;
    for (const auto& t : s->topics_)
      if (t == topic) {
        wants = true;
        break;
      }
    if (!wants) continue;
    port::LockGuard<port::Mutex> lock(s->mu_);
    if (s->queue_.size() >= Subscription::kQueue) {
      s->queue_.pop_front();
      ++s->dropped_;
    }
    s->queue_.push_back(Message{topic, payload});
    s->cv_.notify_all();
    if (s->waker_) s->waker_->signal();
    ++delivered;
  }
  return delivered;
}

std::set<std::string> Hub::topics() {
  port::LockGuard<port::Mutex> lock(mu_);
  std::set<std::string> out;
  for (const auto& s : subs_) out.insert(s->topics_.begin(), s->topics_.end());
  return out;
}

size_t Hub::subscribers(const std::string& topic) {
  port::LockGuard<port::Mutex> lock(mu_);
  size_t n = 0;
  for (const auto& s : subs_)
    for (const auto& t : s->topics_)
      if (t == topic) ++n;
  return n;
}

}  // namespace channels
}  // namespace k32
