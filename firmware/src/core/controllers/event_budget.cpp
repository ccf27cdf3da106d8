#include "core/controllers/event_budget.h"

#include <vector>

#include "core/util/log.h"

namespace k32 {
namespace controllers {

namespace {
const char* const kEvents = "events";
uint32_t json_bytes(const json::Value& v) { return static_cast<uint32_t>(json::dump(v).size()); }
}  // namespace

void EventBudget::install() {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (const auto& ev : st_->list(kEvents, "", nullptr))
      seen(ev["metadata"]["namespace"].as_string(), ev["metadata"]["name"].as_string(), json_bytes(ev));
  }
  st_->add_listener([this](const store::Event& ev) { on_change(ev); });
  // Only an Event added or changed can take the Events past the budget; the deletes enforce()
  // makes come back here too and find nothing to do.
  st_->add_after_write([this](const store::Event& ev) {
    if (ev.resource == kEvents && ev.type != store::EventType::Deleted) enforce();
  });
  enforce();
}

uint64_t EventBudget::bytes() {
  port::LockGuard<port::Mutex> lock(mu_);
  return total_;
}

void EventBudget::forget(const std::string& ns, const std::string& name) {
  for (auto it = order_.begin(); it != order_.end(); ++it) {
    if (it->name != name || it->ns != ns) continue;
    total_ -= it->bytes;
    order_.erase(it);
    return;
  }
}

void EventBudget::seen(const std::string& ns, const std::string& name, uint32_t bytes) {
  forget(ns, name);
  order_.push_back(Kept{ns, name, bytes});
  total_ += bytes;
}

void EventBudget::on_change(const store::Event& ev) {
  if (ev.resource != kEvents) return;
  port::LockGuard<port::Mutex> lock(mu_);
  if (ev.type == store::EventType::Deleted) forget(ev.ns, ev.name);
  else seen(ev.ns, ev.name, json_bytes(ev.object));
}

int EventBudget::enforce() {
  std::vector<Kept> gone;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    // The newest Event stays even alone past the budget: it is the one just reported.
    while (total_ > max_ && order_.size() > 1) {
      total_ -= order_.front().bytes;
      gone.push_back(std::move(order_.front()));
      order_.pop_front();
    }
  }
  // Outside the lock: each delete comes back through the listener (already forgotten).
  for (const Kept& k : gone) {
    json::Value removed;
    st_->remove(kEvents, k.ns, k.name, 0, &removed);
  }
  if (!gone.empty())
    logf("[EVENTS] %u least recently written Event(s) deleted to keep the Events within %llu bytes",
         static_cast<unsigned>(gone.size()), static_cast<unsigned long long>(max_));
  return static_cast<int>(gone.size());
}

}  // namespace controllers
}  // namespace k32
