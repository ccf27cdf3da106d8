// Events within the events_kept budget: past it the least recently written go, the newest
// stays, and an Event written again counts as recent. The write that crosses the budget
// deletes the surplus before it returns: the store never holds more right after a write.
#include <string>

#include "check.h"
#include "core/controllers/event_budget.h"
#include "core/store/object_store.h"

using namespace k32;

static json::Value event(const std::string& name, const std::string& message) {
  json::Value ev = json::Value::object();
  ev.set("apiVersion", "v1");
  ev.set("kind", "Event");
  json::Value& md = ev.set("metadata", json::Value::object());
  md.set("name", name);
  md.set("namespace", "default");
  ev.set("reason", "Started");
  ev.set("message", message);
  return ev;
}

// What the stored Events take, counted from the store itself (not the budget's own count).
static uint64_t stored_bytes(store::ObjectStore* st) {
  uint64_t total = 0;
  for (const auto& ev : st->list("events", "", nullptr)) total += json::dump(ev).size();
  return total;
}

static bool has(store::ObjectStore* st, const std::string& name) {
  json::Value out;
  return st->get("events", "default", name, &out);
}

int main() {
  store::ObjectStore st;
  json::Value stored;
  const std::string msg(200, 'm');
  CHECK(st.create("events", "default", "before", event("before", msg), &stored) == store::Result::Ok);
  const uint64_t one = json::dump(stored).size();  // an Event as stored, metadata included
  const uint64_t max = 5 * one + one / 2;          // room for five
  controllers::EventBudget budget(&st, max);
  budget.install();  // counts the Event already stored
  CHECK_EQ(budget.bytes(), one);
  for (int i = 0; i < 4; ++i) {
    std::string name = "e" + std::to_string(i);
    CHECK(st.create("events", "default", name, event(name, msg), &stored) == store::Result::Ok);
  }
  CHECK_EQ(budget.enforce(), 0);
  CHECK(has(&st, "before"));  // five fit
  // "before" written again: now the most recent, so e0 is the one to go next.
  CHECK(st.update("events", "default", "before", event("before", msg), 0, &stored) == store::Result::Ok);
  CHECK(st.create("events", "default", "e4", event("e4", msg), &stored) == store::Result::Ok);
  CHECK(!has(&st, "e0"));  // deleted by the write that crossed the budget, nothing else ran
  CHECK_EQ(budget.enforce(), 0);
  CHECK(has(&st, "before") && has(&st, "e1") && has(&st, "e4"));
  CHECK(budget.bytes() <= max);
  CHECK(stored_bytes(&st) <= max);
  // A burst: right after each write the stored Events fit, the newest are the ones kept.
  for (int i = 5; i < 40; ++i) {
    std::string name = "e" + std::to_string(i);
    CHECK(st.create("events", "default", name, event(name, msg), &stored) == store::Result::Ok);
    CHECK(budget.bytes() <= max);
    CHECK(stored_bytes(&st) <= max);
  }
  // An update that makes an Event larger crosses the budget too.
  CHECK(st.update("events", "default", "e39", event("e39", std::string(3 * 200, 'u')), 0, &stored) == store::Result::Ok);
  CHECK(stored_bytes(&st) <= max);
  CHECK(has(&st, "e39"));
  CHECK(st.list("events", "", nullptr).size() <= 5u);
  CHECK(has(&st, "e39") && !has(&st, "before"));
  // One Event larger than the whole budget is still kept: it is the one just reported.
  CHECK(st.create("events", "default", "huge", event("huge", std::string(8 * one, 'h')), &stored) == store::Result::Ok);
  CHECK(has(&st, "huge") && st.list("events", "", nullptr).size() == 1u);
  // A deletion by someone else is forgotten, not counted twice.
  json::Value removed;
  CHECK(st.remove("events", "default", "huge", 0, &removed) == store::Result::Ok);
  CHECK_EQ(budget.bytes(), 0u);
  // A store loaded with more than a (smaller) budget holds: install() deletes the surplus.
  store::ObjectStore full;
  for (int i = 0; i < 8; ++i) {
    std::string name = "f" + std::to_string(i);
    CHECK(full.create("events", "default", name, event(name, msg), &stored) == store::Result::Ok);
  }
  controllers::EventBudget late(&full, max);
  late.install();
  CHECK(stored_bytes(&full) <= max);
  CHECK(has(&full, "f7") && !has(&full, "f0"));
  TEST_MAIN_END();
}
