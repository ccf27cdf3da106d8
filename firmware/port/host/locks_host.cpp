// Locks and condition variables of port.h on the host: the standard library's, built in
// the opaque storage the port interface reserves for them.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>

#include "port.h"

namespace k32 {
namespace port {
namespace {

static_assert(sizeof(std::mutex) <= kMutexStorage && alignof(std::mutex) <= 8, "std::mutex does not fit");
static_assert(sizeof(std::recursive_mutex) <= kMutexStorage && alignof(std::recursive_mutex) <= 8,
              "std::recursive_mutex does not fit");
static_assert(sizeof(std::condition_variable) <= kCondVarStorage && alignof(std::condition_variable) <= 8,
              "std::condition_variable does not fit");

std::mutex& host_mutex(Mutex& m) { return *std::launder(reinterpret_cast<std::mutex*>(m.storage())); }

}  // namespace

Mutex::Mutex() { new (raw_) std::mutex(); }
Mutex::~Mutex() { host_mutex(*this).~mutex(); }
void Mutex::lock() { host_mutex(*this).lock(); }
void Mutex::unlock() { host_mutex(*this).unlock(); }
bool Mutex::try_lock() { return host_mutex(*this).try_lock(); }

RecursiveMutex::RecursiveMutex() { new (raw_) std::recursive_mutex(); }
RecursiveMutex::~RecursiveMutex() { std::launder(reinterpret_cast<std::recursive_mutex*>(raw_))->~recursive_mutex(); }
void RecursiveMutex::lock() { std::launder(reinterpret_cast<std::recursive_mutex*>(raw_))->lock(); }
void RecursiveMutex::unlock() { std::launder(reinterpret_cast<std::recursive_mutex*>(raw_))->unlock(); }

namespace {
std::condition_variable& native_cv(unsigned char* raw) { return *std::launder(reinterpret_cast<std::condition_variable*>(raw)); }
}  // namespace

CondVar::CondVar() { new (raw_) std::condition_variable(); }
CondVar::~CondVar() { native_cv(raw_).~condition_variable(); }
void CondVar::notify_one() { native_cv(raw_).notify_one(); }
void CondVar::notify_all() { native_cv(raw_).notify_all(); }

void CondVar::wait(UniqueLock& lock) {
  // Adopt the already held mutex for the standard wait, and hand it back held.
  std::unique_lock<std::mutex> lk(host_mutex(lock.mutex()), std::adopt_lock);
  native_cv(raw_).wait(lk);
  lk.release();
}

bool CondVar::wait_for(UniqueLock& lock, uint32_t ms) {
  std::unique_lock<std::mutex> lk(host_mutex(lock.mutex()), std::adopt_lock);
  const bool woke = native_cv(raw_).wait_for(lk, std::chrono::milliseconds(ms)) == std::cv_status::no_timeout;
  lk.release();
  return woke;
}

}  // namespace port
}  // namespace k32
