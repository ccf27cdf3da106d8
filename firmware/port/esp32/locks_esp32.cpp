// Locks and condition variables of port.h on FreeRTOS, built inside the storage port.h
// reserves (statically allocated semaphores: making a lock never allocates or fails).
// FreeRTOS has no condition variable: each waiter blocks on its own binary semaphore, kept
// on its stack and linked into the CondVar's list under the CondVar's own guard mutex.
#include <new>

#include "freertos/FreeRTOS.h"
#include "freertos/semphr.h"
#include "port.h"

namespace k32 {
namespace port {

namespace {

// A statically created semaphore's handle is the address of its buffer.
SemaphoreHandle_t handle_of(void* raw) { return static_cast<SemaphoreHandle_t>(raw); }

struct Waiter {
  StaticSemaphore_t sem;
  Waiter* next;
};

struct CondState {
  StaticSemaphore_t guard;  // protects the waiter list
  Waiter* head;
  Waiter* tail;
};

static_assert(sizeof(StaticSemaphore_t) <= kMutexStorage && alignof(StaticSemaphore_t) <= 8,
              "a FreeRTOS semaphore does not fit in port::Mutex");
static_assert(sizeof(CondState) <= kCondVarStorage && alignof(CondState) <= 8,
              "the FreeRTOS condition variable does not fit in port::CondVar");

CondState* cond(unsigned char* raw) { return std::launder(reinterpret_cast<CondState*>(raw)); }

TickType_t ticks_for(uint32_t ms) {
  TickType_t t = pdMS_TO_TICKS(ms);
  return (t == 0 && ms > 0) ? 1 : t;
}

// Unlinks w; false when a notifier already took it off the list (and gave its semaphore).
bool unlink(CondState* c, Waiter* w) {
  Waiter* prev = nullptr;
  for (Waiter* it = c->head; it; prev = it, it = it->next) {
    if (it != w) continue;
    if (prev) prev->next = it->next;
    else c->head = it->next;
    if (c->tail == it) c->tail = prev;
    return true;
  }
  return false;
}

}  // namespace

Mutex::Mutex() { xSemaphoreCreateMutexStatic(reinterpret_cast<StaticSemaphore_t*>(raw_)); }
Mutex::~Mutex() { vSemaphoreDelete(handle_of(raw_)); }
void Mutex::lock() { xSemaphoreTake(handle_of(raw_), portMAX_DELAY); }
void Mutex::unlock() { xSemaphoreGive(handle_of(raw_)); }
bool Mutex::try_lock() { return xSemaphoreTake(handle_of(raw_), 0) == pdTRUE; }

RecursiveMutex::RecursiveMutex() { xSemaphoreCreateRecursiveMutexStatic(reinterpret_cast<StaticSemaphore_t*>(raw_)); }
RecursiveMutex::~RecursiveMutex() { vSemaphoreDelete(handle_of(raw_)); }
void RecursiveMutex::lock() { xSemaphoreTakeRecursive(handle_of(raw_), portMAX_DELAY); }
void RecursiveMutex::unlock() { xSemaphoreGiveRecursive(handle_of(raw_)); }

CondVar::CondVar() {
  CondState* c = new (raw_) CondState();
  xSemaphoreCreateMutexStatic(&c->guard);
  c->head = c->tail = nullptr;
}

CondVar::~CondVar() {
  CondState* c = cond(raw_);
  vSemaphoreDelete(handle_of(&c->guard));
  c->~CondState();
}

void CondVar::notify_one() {
  CondState* c = cond(raw_);
  xSemaphoreTake(handle_of(&c->guard), portMAX_DELAY);
  Waiter* w = c->head;
  if (w) {
    c->head = w->next;
    if (!c->head) c->tail = nullptr;
    xSemaphoreGive(handle_of(&w->sem));
  }
  xSemaphoreGive(handle_of(&c->guard));
}

void CondVar::notify_all() {
  CondState* c = cond(raw_);
  xSemaphoreTake(handle_of(&c->guard), portMAX_DELAY);
  Waiter* w = c->head;
  c->head = c->tail = nullptr;
  while (w) {
    Waiter* next = w->next;  // read before the give: the woken waiter's stack frame may go
    xSemaphoreGive(handle_of(&w->sem));
    w = next;
  }
  xSemaphoreGive(handle_of(&c->guard));
}

bool CondVar::wait_for(UniqueLock& lock, uint32_t ms) {
  CondState* c = cond(raw_);
  Waiter w;
  xSemaphoreCreateBinaryStatic(&w.sem);
  w.next = nullptr;
  xSemaphoreTake(handle_of(&c->guard), portMAX_DELAY);
  if (c->tail) c->tail->next = &w;
  else c->head = &w;
  c->tail = &w;
  xSemaphoreGive(handle_of(&c->guard));
  // Registered before the caller's lock is released: a notify after that cannot be missed.
  lock.unlock();
  bool woke = xSemaphoreTake(handle_of(&w.sem), ms == UINT32_MAX ? portMAX_DELAY : ticks_for(ms)) == pdTRUE;
  if (!woke) {
    xSemaphoreTake(handle_of(&c->guard), portMAX_DELAY);
    // Still listed: a real timeout. Not listed: a notifier took it (and gave the semaphore
    // under the guard) just as the wait ran out; count that as a wake-up.
    woke = !unlink(c, &w);
    xSemaphoreGive(handle_of(&c->guard));
  }
  vSemaphoreDelete(handle_of(&w.sem));
  lock.lock();
  return woke;
}

void CondVar::wait(UniqueLock& lock) { wait_for(lock, UINT32_MAX); }

}  // namespace port
}  // namespace k32
