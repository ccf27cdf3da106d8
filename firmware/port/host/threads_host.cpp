// Threads with an explicit stack size, as FreeRTOS tasks have on boards.
#include <pthread.h>

#include <cstring>

#include "port.h"

namespace k32 {
namespace port {
namespace {

struct Start {
  ThreadFn fn;
  void* arg;
  char name[16];
};

thread_local uintptr_t t_stack_base = 0;  // highest address of this thread's stack
thread_local uint32_t t_stack_size = 0;

void* trampoline(void* p) {
  Start s = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  pthread_setname_np(pthread_self(), s.name);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    t_stack_base = reinterpret_cast<uintptr_t>(addr) + size;
    t_stack_size = static_cast<uint32_t>(size);
    pthread_attr_destroy(&attr);
  }
  s.fn(s.arg);
  return nullptr;
}

}  // namespace

bool thread_start(const char* name, uint32_t stack_bytes, Region region, ThreadFn fn, void* arg) {
  Start* s = new Start{fn, arg, {0}};
  std::strncpy(s->name, name, sizeof s->name - 1);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // The host needs some room for libc itself (name resolution, stdio); boards get the exact value.
  const size_t min_stack = PTHREAD_STACK_MIN;  // a long in some libcs, an int in others
  size_t stack = stack_bytes < min_stack ? min_stack : stack_bytes;
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's redzones make every frame several times larger than on a board.
  stack *= 4;
#endif
  pthread_attr_setstacksize(&attr, stack);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  int rc = pthread_create(&t, &attr, trampoline, s);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    delete s;
    return false;
  }
  return true;
}

uint32_t stack_free_bytes() {
  char probe;
  uintptr_t here = reinterpret_cast<uintptr_t>(&probe);
  if (t_stack_base == 0) {
    // The main thread: ask for its limits once.
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      pthread_attr_getstack(&attr, &addr, &size);
      t_stack_base = reinterpret_cast<uintptr_t>(addr) + size;
      t_stack_size = static_cast<uint32_t>(size);
      pthread_attr_destroy(&attr);
    }
  }
  uintptr_t used = t_stack_base > here ? t_stack_base - here : 0;
  return used >= t_stack_size ? 0u : static_cast<uint32_t>(t_stack_size - used);
}

}  // namespace port
}  // namespace k32
