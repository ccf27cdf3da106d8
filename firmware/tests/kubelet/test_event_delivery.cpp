// The node's one event-delivery thread (core/kubelet/event_delivery.h) over a real channel
// hub: subscriptions take turns one message at a time, each keeps its order, a pod that is
// gone (deleted, or its handler trapped and the pod stopped) leaves without holding up the
// others, and the thread ends once nothing is left to serve.
#include <functional>
#include <string>
#include <vector>

#include "check.h"
#include "core/channels/channel_hub.h"
#include "core/kubelet/event_delivery.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;
using k32::kubelet::EventDelivery;

namespace {

// The kubelet's default for the thread (a worker's: its budget plus one in-process call).
constexpr uint32_t kStack = K32_EVENTS_STACK_BYTES + K32_INPROC_CALL_STACK_BYTES;

// What a test sink saw, in delivery order ("key topic payload").
struct Seen {
  port::Mutex mu;
  std::vector<std::string> lines;
  std::string gone;   // a pod whose delivery answers "gone"
  std::string stall;  // a pod whose handler holds the thread until `release`
  bool release = false;
  std::string busy;  // a pod whose instance is in another call (Busy, nothing delivered)
  int busy_offers = 0;
  port::CondVar cv;
  size_t size() {
    port::LockGuard<port::Mutex> lock(mu);
    return lines.size();
  }
  std::vector<std::string> copy() {
    port::LockGuard<port::Mutex> lock(mu);
    return lines;
  }
};

EventDelivery::Result sink(void* ctx, const std::string& key, const channels::Message& m, uint64_t) {
  Seen* s = static_cast<Seen*>(ctx);
  port::UniqueLock lock(s->mu);
  if (key == s->busy) {
    ++s->busy_offers;
    return EventDelivery::Result::Busy;
  }
  s->lines.push_back(key + " " + m.topic + " " + m.payload);
  if (key == s->stall) s->cv.wait(lock, [&] { return s->release; });
  return key == s->gone ? EventDelivery::Result::Gone : EventDelivery::Result::Done;
}

void set_busy(Seen& s, const std::string& key) {
  port::LockGuard<port::Mutex> lock(s.mu);
  s.busy = key;
}

bool wait_for(const std::function<bool()>& done, uint32_t ms = 5000) {
  for (uint32_t t = 0; t < ms; t += 5) {
    if (done()) return true;
    port::sleep_ms(5);
  }
  return done();
}

// Holds the delivery thread inside pod "ns/gate"'s handler while a test queues messages, so
// what it does next depends on the turn order alone, not on timing.
struct Gate {
  Seen& seen;
  std::shared_ptr<channels::Subscription> sub;
  Gate(Seen& s, channels::Hub& hub, EventDelivery& d) : seen(s) {
    seen.stall = "ns/gate";
    sub = hub.subscribe({"gate"}, d.waker());
    CHECK(d.add("ns/gate", sub));
    hub.publish("gate", "hold");
    CHECK(wait_for([&] { return seen.size() == 1; }));
  }
  void open() {
    {
      port::LockGuard<port::Mutex> lock(seen.mu);
      seen.release = true;
      seen.lines.erase(seen.lines.begin());  // the gate's own message
    }
    seen.cv.notify_all();
  }
};

bool same(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  bool ok = got.size() == want.size();
  for (size_t i = 0; i < got.size() || i < want.size(); ++i) {
    const std::string g = i < got.size() ? got[i] : "-", w = i < want.size() ? want[i] : "-";
    if (g != w) {
      std::fprintf(stderr, "  delivery %zu: got \"%s\", want \"%s\"\n", i, g.c_str(), w.c_str());
      ok = false;
    }
  }
  return ok;
}

// One busy pod and two quiet ones take turns, one message each; each pod's messages come in
// the order published.
void test_round_robin_and_fifo() {
  Seen seen;
  channels::Hub hub;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, K32_POD_CALL_DEADLINE_MS);
  Gate gate(seen, hub, d);
  auto busy = hub.subscribe({"busy"}, d.waker());
  auto a = hub.subscribe({"a"}, d.waker());
  auto b = hub.subscribe({"b"}, d.waker());
  CHECK(d.add("ns/busy", busy));
  CHECK(d.add("ns/a", a));
  CHECK(d.add("ns/b", b));
  for (int i = 0; i < 6; ++i) hub.publish("busy", "m" + std::to_string(i));
  hub.publish("a", "m0");
  hub.publish("a", "m1");
  hub.publish("b", "m0");
  gate.open();
  CHECK(wait_for([&] { return seen.size() == 9; }));
  port::sleep_ms(50);  // nothing more comes
  CHECK(same(seen.copy(), {"ns/busy busy m0", "ns/a a m0", "ns/b b m0", "ns/busy busy m1", "ns/a a m1", "ns/busy busy m2",
                           "ns/busy busy m3", "ns/busy busy m4", "ns/busy busy m5"}));
  CHECK_EQ(d.subscriptions(), 4u);
}

// A pod's topics grew (k32_channel_subscribe): its new subscription keeps the old one's turn.
void test_replaced_subscription_keeps_turn() {
  Seen seen;
  channels::Hub hub;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, K32_POD_CALL_DEADLINE_MS);
  Gate gate(seen, hub, d);
  auto a = hub.subscribe({"a"}, d.waker());
  auto b = hub.subscribe({"b"}, d.waker());
  CHECK(d.add("ns/a", a));
  CHECK(d.add("ns/b", b));
  auto a2 = hub.subscribe({"a", "a2"}, d.waker());
  CHECK(d.add("ns/a", a2, a));
  hub.unsubscribe(a);
  CHECK_EQ(d.subscriptions(), 3u);
  hub.publish("b", "m0");
  hub.publish("a2", "m0");
  hub.publish("a", "m1");
  gate.open();
  CHECK(wait_for([&] { return seen.size() == 3; }));
  CHECK(same(seen.copy(), {"ns/a a2 m0", "ns/b b m0", "ns/a a m1"}));
}

// A pod that is gone (its delivery says so: deleted, or stopped after a trap) is dropped at its
// first message; the others get every message, in order.
void test_gone_pod_dropped() {
  Seen seen;
  seen.gone = "ns/gone";
  channels::Hub hub;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, K32_POD_CALL_DEADLINE_MS);
  Gate gate(seen, hub, d);
  auto x = hub.subscribe({"t"}, d.waker());
  auto g = hub.subscribe({"t"}, d.waker());
  auto y = hub.subscribe({"t"}, d.waker());
  CHECK(d.add("ns/x", x));
  CHECK(d.add("ns/gone", g));
  CHECK(d.add("ns/y", y));
  for (int i = 0; i < 3; ++i) hub.publish("t", "m" + std::to_string(i));
  gate.open();
  CHECK(wait_for([&] { return seen.size() == 7; }));
  port::sleep_ms(50);
  CHECK(same(seen.copy(), {"ns/x t m0", "ns/gone t m0", "ns/y t m0", "ns/x t m1", "ns/y t m1", "ns/x t m2", "ns/y t m2"}));
  CHECK_EQ(d.subscriptions(), 3u);  // the gate, x and y
}

// A pod deleted while its handler runs on the thread (a long or trapping k32_event): removing
// it does not wait for that handler, its queued messages are never delivered, and the other
// pods get theirs as soon as the handler returns.
void test_pod_deleted_mid_delivery() {
  Seen seen;
  channels::Hub hub;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, K32_POD_CALL_DEADLINE_MS);
  Gate gate(seen, hub, d);  // the gate is the pod being deleted
  auto x = hub.subscribe({"t"}, d.waker());
  CHECK(d.add("ns/x", x));
  hub.publish("gate", "late0");
  hub.publish("gate", "late1");
  hub.publish("t", "m0");
  hub.publish("t", "m1");
  const uint64_t t0 = port::monotonic_ms();
  d.remove(gate.sub);  // its handler still holds the thread
  CHECK(port::monotonic_ms() - t0 < 1000);
  CHECK_EQ(d.subscriptions(), 1u);
  gate.open();
  CHECK(wait_for([&] { return seen.size() == 2; }));
  port::sleep_ms(50);
  CHECK(same(seen.copy(), {"ns/x t m0", "ns/x t m1"}));
}

// A pod whose instance is in a request is passed over, not waited for: the others get their
// messages meanwhile; once its call ends (retry) it gets its own, in order.
void test_busy_pod_passed_over() {
  Seen seen;
  channels::Hub hub;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, K32_POD_CALL_DEADLINE_MS);
  Gate gate(seen, hub, d);
  set_busy(seen, "ns/busy");
  auto busy = hub.subscribe({"b"}, d.waker());
  auto a = hub.subscribe({"a"}, d.waker());
  CHECK(d.add("ns/busy", busy));
  CHECK(d.add("ns/a", a));
  hub.publish("b", "m0");
  hub.publish("b", "m1");
  hub.publish("a", "m0");
  hub.publish("a", "m1");
  gate.open();
  CHECK(wait_for([&] { return seen.size() == 2; }));
  port::sleep_ms(100);
  CHECK(same(seen.copy(), {"ns/a a m0", "ns/a a m1"}));
  {
    port::LockGuard<port::Mutex> lock(seen.mu);
    CHECK(seen.busy_offers >= 1 && seen.busy_offers <= 4);  // offered again on wakes, not spun
  }
  set_busy(seen, "");
  const uint64_t t0 = port::monotonic_ms();
  d.retry();  // its call ended
  CHECK(wait_for([&] { return seen.size() == 4; }));
  CHECK(port::monotonic_ms() - t0 < K32_CHANNEL_POLL_MS * 3 / 4);  // woken by the retry, not the poll
  CHECK(same(seen.copy(), {"ns/a a m0", "ns/a a m1", "ns/busy b m0", "ns/busy b m1"}));
}

// A message whose pod stays busy past the call deadline (counted from its first offer) is
// dropped, as a call waiting that long for its turn is; the next one gets its own deadline.
void test_busy_past_deadline_dropped() {
  Seen seen;
  channels::Hub hub;
  const uint32_t deadline = 1000;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, deadline);
  set_busy(seen, "ns/busy");
  auto busy = hub.subscribe({"b"}, d.waker());
  CHECK(d.add("ns/busy", busy));
  const uint64_t t0 = port::monotonic_ms();
  hub.publish("b", "m0");
  hub.publish("b", "m1");
  port::sleep_ms(deadline * 3 / 2);  // m0's deadline passed; m1 offered since, its own running
  set_busy(seen, "");
  d.retry();
  CHECK(wait_for([&] { return seen.size() == 1; }));
  CHECK(port::monotonic_ms() - t0 < 2 * deadline);
  port::sleep_ms(50);
  CHECK(same(seen.copy(), {"ns/busy b m1"}));
}

// What goes back in front of a full queue is its oldest message: that one is dropped.
void test_put_back_keeps_the_cap() {
  channels::Hub hub;
  auto s = hub.subscribe({"t"});
  for (int i = 0; i < 70; ++i) hub.publish("t", std::to_string(i));
  CHECK_EQ(s->dropped(), 6u);  // 64 kept
  channels::Message m;
  CHECK(s->try_next(&m) && m.payload == "6");
  CHECK(s->put_back(std::move(m)));
  CHECK(s->try_next(&m) && m.payload == "6");
  hub.publish("t", "70");
  CHECK(!s->put_back(std::move(m)));
  CHECK_EQ(s->dropped(), 7u);
  CHECK(s->try_next(&m) && m.payload == "7");
}

// One thread serves every pod, and it ends when the last pod's subscription leaves (its stack
// goes back to the heap); the next subscription starts it again.
void test_one_thread_that_ends_when_idle() {
  Seen seen;
  channels::Hub hub;
  EventDelivery d(&sink, &seen, kStack, port::Region::Any, K32_POD_CALL_DEADLINE_MS);
  CHECK(!d.running());
  std::vector<std::shared_ptr<channels::Subscription>> subs;
  for (int i = 0; i < 4; ++i) {
    subs.push_back(hub.subscribe({"t"}, d.waker()));
    CHECK(d.add("ns/p" + std::to_string(i), subs.back()));
  }
  CHECK(d.running());
  hub.publish("t", "m");
  CHECK(wait_for([&] { return seen.size() == 4; }));
  for (auto& s : subs) {
    CHECK(d.running());
    d.remove(s);
  }
  CHECK(wait_for([&] { return !d.running(); }));
  auto again = hub.subscribe({"t"}, d.waker());
  CHECK(d.add("ns/again", again));
  CHECK(d.running());
  hub.publish("t", "m");
  CHECK(wait_for([&] { return seen.size() == 5; }));
}

}  // namespace

int main() {
  test_round_robin_and_fifo();
  test_replaced_subscription_keeps_turn();
  test_gone_pod_dropped();
  test_pod_deleted_mid_delivery();
  test_busy_pod_passed_over();
  test_busy_past_deadline_dropped();
  test_put_back_keeps_the_cap();
  test_one_thread_that_ends_when_idle();
  TEST_MAIN_END();
}
