// Threads with an explicit stack size, as FreeRTOS tasks have on boards. Each thread gets
// exactly the budget it asks for (where the OS allows), a guard page below it so an overflow
// faults here instead of corrupting a neighbour, and a painted stack so its peak use can be
// measured while it runs and after it ends (stack_report). The stack is booked as heap while
// the thread lives, as FreeRTOS takes a task's stack from the board's heap: a thread the heap
// cannot hold is refused (thread_start returns false) as xTaskCreate refuses it on the board.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include <cstring>
#include <map>
#include <new>
#include <string>
#include <utility>

#include "memory_host.h"
#include "port.h"

namespace k32 {
namespace port {
namespace {

constexpr uint64_t kPaintWord = 0x6b3332737461636bull;  // "k32stack": never written by code
constexpr uintptr_t kPaintMargin = 1024;                // below the trampoline's frame, left unpainted

struct Start {
  ThreadFn fn;
  void* arg;
  uint32_t budget;
  char name[16];
  size_t asked;    // the stack block asked of pthread_create (budget + glibc's share)
  StackHeap heap;  // the budget booked as the node's heap until the thread ends
};

// A running thread whose painted stack can be scanned.
struct Live {
  char name[16];
  uint32_t budget;
  const uint64_t* lo;  // lowest painted word
  uintptr_t top;       // highest address of the stack
  Live* next;
};

struct Totals {
  uint32_t peak = 0;
  uint32_t threads = 0;
  uint32_t running = 0;
};

struct Registry {
  Mutex lock;
  Live* live = nullptr;
  std::map<std::pair<std::string, uint32_t>, Totals> kinds;  // (name, budget) -> peak so far
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: detached threads may outlive main
  return *r;
}

thread_local uintptr_t t_stack_base = 0;  // highest address of this thread's stack
thread_local uint32_t t_stack_size = 0;
thread_local uintptr_t t_stack_low = 0;  // lowest usable address (the guard page is below)
thread_local const Start* t_start = nullptr;

void put(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// A fault on the guard page below a thread's stack: name the thread and its budget, then
// die as the fault would have (a board's FreeRTOS stack check stops the chip the same way).
void on_segv(int sig, siginfo_t* info, void*) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(info->si_addr);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  if (t_start && t_stack_low && a < t_stack_low && a + page >= t_stack_low) {
    char num[24];
    int i = sizeof num - 1;
    num[i] = 0;
    uint32_t v = t_start->budget;
    do {
      num[--i] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && i > 0);
    put("[PORT] stack overflow in thread ");
    put(t_start->name);
    put(" (budget ");
    put(num + i);
    put(" bytes)\n");
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

// Each thread handles its own overflow on a small separate stack (its own is exhausted);
// returns that stack, which the thread gives back as it ends.
void* install_overflow_report() {
  static const bool installed = [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGSEGV, &sa, nullptr) == 0;
  }();
  (void)installed;
  stack_t ss;
  std::memset(&ss, 0, sizeof ss);
  ss.ss_size = SIGSTKSZ;               // the OS's own size for a signal stack
  ss.ss_sp = std::malloc(ss.ss_size);  // the OS's allocator: a diagnostic, not the node's heap
  if (ss.ss_sp && sigaltstack(&ss, nullptr) != 0) {
    std::free(ss.ss_sp);
    return nullptr;
  }
  return ss.ss_sp;
}

void remove_overflow_report(void* alt) {
  if (!alt) return;
  stack_t off;
  std::memset(&off, 0, sizeof off);
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, nullptr);
  std::free(alt);
}

// Deepest use of a painted stack: from the top down to the lowest overwritten word. Reads
// another thread's stack while it runs; a stale word only makes the figure a moment old.
__attribute__((no_sanitize("address", "thread"))) uint32_t scan_peak(const Live& l) {
  const volatile uint64_t* w = l.lo;
  while (reinterpret_cast<uintptr_t>(w) < l.top && *w == kPaintWord) ++w;
  return static_cast<uint32_t>(l.top - reinterpret_cast<uintptr_t>(w));
}

__attribute__((noinline)) void paint(uint64_t* lo, uint64_t* hi) {
  for (volatile uint64_t* w = lo; w < hi; ++w) *w = kPaintWord;
}

void* trampoline(void* p) {
  Start s = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  pthread_setname_np(pthread_self(), s.name);
  Live me{{0}, s.budget, nullptr, 0, nullptr};
  std::memcpy(me.name, s.name, sizeof me.name);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    t_stack_base = reinterpret_cast<uintptr_t>(addr) + size;
    // glibc may hand a thread a larger stack from its cache of ended threads' stacks; the
    // free stack an in-process call sees is measured against what was asked for (the
    // budget), so the simulator runs out where a board would, not wherever the cache says.
    t_stack_size = static_cast<uint32_t>(size < s.asked ? size : s.asked);
    t_stack_low = reinterpret_cast<uintptr_t>(addr);
    t_start = &s;
    pthread_attr_destroy(&attr);
#if !defined(__SANITIZE_ADDRESS__)
    // Paint from the bottom up to just below this frame (sanitizer builds keep their own
    // shadow of the stack and are not measured).
    uintptr_t frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    uint64_t* lo = reinterpret_cast<uint64_t*>((reinterpret_cast<uintptr_t>(addr) + 7) & ~uintptr_t{7});
    uint64_t* hi = reinterpret_cast<uint64_t*>((frame - kPaintMargin) & ~uintptr_t{7});
    if (hi > lo) {
      paint(lo, hi);
      me.lo = lo;
      // Measured from this entry frame down: glibc keeps the thread's TLS and control block
      // at the top of the same block, which a FreeRTOS task keeps elsewhere.
      me.top = frame;
    }
#endif
  }
  void* alt = nullptr;
#if !defined(__SANITIZE_ADDRESS__)
  alt = install_overflow_report();  // AddressSanitizer reports overflows itself
#endif
  Registry& r = registry();
  {
    LockGuard<Mutex> g(r.lock);
    Totals& t = r.kinds[{s.name, s.budget}];
    t.threads++;
    t.running++;
    if (me.lo) {
      me.next = r.live;
      r.live = &me;
    }
  }
  s.fn(s.arg);
  remove_overflow_report(alt);
  {
    const uint32_t peak = me.lo ? scan_peak(me) : 0;
    LockGuard<Mutex> g(r.lock);
    for (Live** l = &r.live; *l; l = &(*l)->next) {
      if (*l == &me) {
        *l = me.next;
        break;
      }
    }
    Totals& t = r.kinds[{s.name, s.budget}];
    if (peak > t.peak) t.peak = peak;
    t.running--;
  }
  // The stack goes back to the heap as the task's does when FreeRTOS deletes it (glibc keeps
  // the block a little longer, for its own cache, which the board has no counterpart of).
  stack_heap_give(s.heap);
  return nullptr;
}

void* probe_main(void* out) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    uintptr_t top = reinterpret_cast<uintptr_t>(addr) + size;
    *static_cast<size_t*>(out) = top - reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  }
  return nullptr;
}

// What glibc keeps at the top of a thread's stack block before the thread's first frame
// (static TLS of every loaded library, the thread control block): measured once with a
// probe thread, and added to every budget so the thread's own frames get exactly the budget.
size_t libc_overhead() {
  static const size_t v = [] {
    size_t out = 0;
    pthread_t t;
    if (pthread_create(&t, nullptr, probe_main, &out) == 0) pthread_join(t, nullptr);
    return out;
  }();
  return v;
}

}  // namespace

bool thread_start(const char* name, uint32_t stack_bytes, Region region, ThreadFn fn, void* arg) {
  StackHeap booked;
  if (!stack_heap_take(stack_bytes, region, &booked)) return false;  // no heap for the stack: refused, as on the board
  Start* s = new (std::nothrow) Start{fn, arg, stack_bytes, {0}, 0, booked};
  if (!s) {
    stack_heap_give(booked);
    return false;
  }
  std::strncpy(s->name, name, sizeof s->name - 1);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // Exactly the budget for the thread's own frames, plus what glibc keeps in the same block.
  // PTHREAD_STACK_MIN is a floor only because glibc refuses a smaller block; a budget that
  // small is still checked: stack_report shows a peak over the budget.
  const size_t min_stack = PTHREAD_STACK_MIN;  // a long in some libcs, an int in others
  size_t stack = stack_bytes + libc_overhead();
  if (stack < min_stack) stack = min_stack;
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's redzones make every frame several times larger than on a board.
  stack *= 4;
#endif
  s->asked = stack;
  pthread_attr_setstacksize(&attr, stack);
  // One inaccessible page below the stack: an overflow faults at once, in this thread.
  pthread_attr_setguardsize(&attr, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  int rc = pthread_create(&t, &attr, trampoline, s);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    stack_heap_give(booked);
    delete s;
    return false;
  }
  return true;
}

size_t stack_report(StackUse* out, size_t max) {
  Registry& r = registry();
  LockGuard<Mutex> g(r.lock);
  std::map<std::pair<std::string, uint32_t>, Totals> rows = r.kinds;
  for (Live* l = r.live; l; l = l->next) {
    uint32_t peak = scan_peak(*l);
    Totals& t = rows[{l->name, l->budget}];
    if (peak > t.peak) t.peak = peak;
  }
  size_t i = 0;
  for (const auto& kv : rows) {
    if (i < max) {
      StackUse& u = out[i];
      u = StackUse{};  // not memset: the default member initializer makes it non-trivial
      std::strncpy(u.name, kv.first.first.c_str(), sizeof u.name - 1);
      u.budget = kv.first.second;
      u.peak = kv.second.peak;
      u.threads = kv.second.threads;
      u.running = kv.second.running;
    }
    ++i;
  }
  return i;
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
