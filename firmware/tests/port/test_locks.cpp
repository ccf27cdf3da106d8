// The port's locks and condition variables: exclusion between port threads, wake-ups,
// timeouts on the monotonic clock and recursive locking.
#include <cstdint>

#include "check.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;

namespace {

struct Shared {
  port::Mutex mu;
  port::CondVar cv;
  uint32_t counter = 0;
  uint32_t finished = 0;
};

constexpr uint32_t kRounds = 20000;

void bump(void* arg) {
  Shared* s = static_cast<Shared*>(arg);
  for (uint32_t i = 0; i < kRounds; ++i) {
    port::LockGuard<port::Mutex> lock(s->mu);
    uint32_t v = s->counter;  // a read-modify-write that loses counts without exclusion
    s->counter = v + 1;
  }
  port::LockGuard<port::Mutex> lock(s->mu);
  ++s->finished;
  s->cv.notify_all();
}

}  // namespace

int main() {
  // A wait with nothing to wake it times out after about the given time, and says so.
  {
    port::Mutex mu;
    port::CondVar cv;
    port::UniqueLock lock(mu);
    uint64_t t0 = port::monotonic_ms();
    bool ready = cv.wait_for(lock, 50, [] { return false; });
    uint64_t waited = port::monotonic_ms() - t0;
    CHECK(!ready);
    CHECK(waited >= 50);
    CHECK(lock.owns_lock());
    CHECK(!mu.try_lock());  // still held by the waiter after the timeout
  }
  // A ready predicate returns at once without waiting.
  {
    port::Mutex mu;
    port::CondVar cv;
    port::UniqueLock lock(mu);
    CHECK(cv.wait_for(lock, 10000, [] { return true; }));
  }
  // Unlock then lock again through UniqueLock.
  {
    port::Mutex mu;
    port::UniqueLock lock(mu);
    lock.unlock();
    CHECK(!lock.owns_lock());
    CHECK(mu.try_lock());
    mu.unlock();
    lock.lock();
    CHECK(lock.owns_lock());
  }
  // Recursive mutex: the same thread locks twice.
  {
    port::RecursiveMutex rm;
    port::LockGuard<port::RecursiveMutex> a(rm);
    port::LockGuard<port::RecursiveMutex> b(rm);
    CHECK(true);
  }
  // Threads (where the platform has them): no lost increments, and the waiter wakes
  // when the last one finishes.
  Shared s;
  const uint32_t kThreads = 4;
  uint32_t started = 0;
  for (uint32_t i = 0; i < kThreads; ++i)
    if (port::thread_start("k32_locktest", K32_EVENTS_STACK_BYTES, port::Region::Internal, bump, &s)) ++started;
  if (started > 0) {
    port::UniqueLock lock(s.mu);
    bool done = s.cv.wait_for(lock, 20000, [&] { return s.finished == started; });
    CHECK(done);
    CHECK_EQ(s.counter, started * kRounds);
  } else {
    std::printf("no threads on this platform: exclusion part skipped\n");
  }
  TEST_MAIN_END();
}
