// Locks on the bare-metal test target: one thread and no scheduler, so a lock is a flag.
// Taking a held lock, or waiting without a timeout, could never end: both stop the
// program with a message instead of hanging the test run.
#include <cstdio>
#include <cstdlib>
#include <new>

#include "port.h"

namespace k32 {
namespace port {
namespace {

struct Flag {
  uint32_t depth;
};
static_assert(sizeof(Flag) <= kMutexStorage, "lock state does not fit");

Flag& flag(void* raw) { return *std::launder(static_cast<Flag*>(raw)); }

[[noreturn]] void deadlock(const char* what) {
  std::fprintf(stderr, "k32 mcu: %s would wait forever (single thread)\n", what);
  std::abort();
}

}  // namespace

Mutex::Mutex() { new (raw_) Flag{0}; }
Mutex::~Mutex() {}
void Mutex::lock() {
  if (flag(raw_).depth) deadlock("locking a held mutex");
  flag(raw_).depth = 1;
}
void Mutex::unlock() { flag(raw_).depth = 0; }
bool Mutex::try_lock() {
  if (flag(raw_).depth) return false;
  flag(raw_).depth = 1;
  return true;
}

RecursiveMutex::RecursiveMutex() { new (raw_) Flag{0}; }
RecursiveMutex::~RecursiveMutex() {}
void RecursiveMutex::lock() { ++flag(raw_).depth; }
void RecursiveMutex::unlock() { --flag(raw_).depth; }

CondVar::CondVar() {}
CondVar::~CondVar() {}
void CondVar::notify_one() {}
void CondVar::notify_all() {}
void CondVar::wait(UniqueLock&) { deadlock("a condition wait without timeout"); }
bool CondVar::wait_for(UniqueLock& lock, uint32_t ms) {
  lock.unlock();
  sleep_ms(ms);
  lock.lock();
  return false;
}

}  // namespace port
}  // namespace k32
