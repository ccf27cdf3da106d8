// The port interface: everything the portable core needs from a platform.
// port/host implements it with POSIX (the simulator), port/esp32 with ESP-IDF.
// Nothing above port/ may include a platform header or test a platform macro.
#pragma once
#include <cstddef>
#include <cstdint>

// Code that runs for every instruction of every pod (the interpreter's dispatch loop) goes
// where the board executes fastest: a port whose build defines K32_PORT_FAST_CODE_SECTION
// (the ESP32's IRAM section) gets that section; elsewhere (the host) this is a no-op.
#if defined(K32_PORT_FAST_CODE_SECTION)
#define K32_FAST_CODE __attribute__((section(K32_PORT_FAST_CODE_SECTION)))
#else
#define K32_FAST_CODE
#endif

namespace k32 {
namespace port {

// ---- clock ----
uint64_t monotonic_ms();  // never goes backwards
uint64_t monotonic_us();  // the same clock in microseconds (pods' CPU time is mostly sub-ms)
int64_t wall_time_s();    // Unix seconds; 0 until the clock is set (SNTP on boards)
bool wall_clock_set();
void sleep_ms(uint32_t ms);

// ---- memory ----
// Internal: internal RAM only. Psram: PSRAM (internal RAM on a board without it), asked only
// for pods' linear memory and value stacks, TLS buffers and the stacks the profile places
// there. Any: internal RAM first (PSRAM is several times slower), PSRAM past it where the
// simulator's board has it, counted as spilled (see MemStats).
enum class Region : uint8_t { Internal = 0, Psram = 1, Any = 2 };
// All core allocations go through here so boards can place them and the node can account.
void* mem_alloc(size_t bytes, Region region);
void mem_free(void* p);
struct MemStats {
  uint64_t internal_in_use;
  uint64_t psram_in_use;
  uint64_t peak_in_use;
  uint64_t alloc_count;
  // Of psram_in_use, the blocks that asked for internal RAM first and found it full: what
  // internal RAM would have had to hold (0 where the port does not spill).
  uint64_t internal_spilled = 0;
};
MemStats mem_stats();
bool has_psram();
// Bytes an allocation in `region` could still take (Any: both regions together, as it spills): the node
// refuses work that would leave less than its reserve, instead of failing mid-way.
uint64_t mem_available(Region region);

// ---- threads ----
using ThreadFn = void (*)(void* arg);
// Starts a detached thread with exactly `stack_bytes` of stack placed in `region`. The stack is
// the node's heap while the thread lives (FreeRTOS allocates it; the simulator books it): false,
// and nothing started, when the region cannot hold it.
bool thread_start(const char* name, uint32_t stack_bytes, Region region, ThreadFn fn, void* arg);
// Bytes of native stack left below the current frame (for in-process call budgets).
uint32_t stack_free_bytes();
// Peak stack use of the node's threads, one row per thread name and budget: the deepest
// any thread of that kind has gone so far (running ones included where the platform can see
// them). `peak` > `budget` means the budget was overrun. Fills up to `max` rows and returns
// how many rows there are.
struct StackUse {
  char name[16];
  uint32_t budget;   // stack_bytes asked of thread_start
  uint32_t peak;     // deepest use seen, bytes; 0 when the platform cannot measure it
  uint32_t threads;  // threads of this kind started so far
  // Of those, alive now: their stacks (running x budget) are inside the node's heap figures. The
  // simulator books them there; a board's FreeRTOS takes them from heap_caps beside the node's
  // accounting, so its port leaves this 0.
  uint32_t running = 0;
};
size_t stack_report(StackUse* out, size_t max);

// ---- locks and condition variables ----
// The core never uses std::mutex/std::condition_variable: newlib targets have no threads
// behind the standard library, and boards lock with FreeRTOS semaphores. Each platform
// builds its native object inside the storage below (no heap: a lock can always be made,
// also as a static object), and checks with a static_assert that it fits. The sizes are
// those of the largest platform object (FreeRTOS' StaticSemaphore_t plus a waiter list),
// layout constants, not budgets.
constexpr size_t kMutexStorage = 96;
constexpr size_t kCondVarStorage = 96;

class Mutex {
 public:
  Mutex();
  ~Mutex();
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void lock();
  void unlock();
  bool try_lock();
  // The platform object inside (for the platform's own CondVar).
  void* storage() { return raw_; }

 private:
  alignas(8) unsigned char raw_[kMutexStorage];
};

// The same thread may lock it again; unlocks once per lock (keeps nested callbacks ordered).
class RecursiveMutex {
 public:
  RecursiveMutex();
  ~RecursiveMutex();
  RecursiveMutex(const RecursiveMutex&) = delete;
  RecursiveMutex& operator=(const RecursiveMutex&) = delete;
  void lock();
  void unlock();

 private:
  alignas(8) unsigned char raw_[kMutexStorage];
};

// Holds a lock for one scope (Mutex or RecursiveMutex).
template <class M>
class LockGuard {
 public:
  explicit LockGuard(M& m) : m_(m) { m_.lock(); }
  ~LockGuard() { m_.unlock(); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  M& m_;
};

// A lock that can be released and taken again inside its scope; what CondVar waits with.
class UniqueLock {
 public:
  explicit UniqueLock(Mutex& m) : m_(m) { lock(); }
  ~UniqueLock() {
    if (owns_) m_.unlock();
  }
  UniqueLock(const UniqueLock&) = delete;
  UniqueLock& operator=(const UniqueLock&) = delete;
  void lock() {
    m_.lock();
    owns_ = true;
  }
  void unlock() {
    owns_ = false;
    m_.unlock();
  }
  bool owns_lock() const { return owns_; }
  Mutex& mutex() { return m_; }

 private:
  Mutex& m_;
  bool owns_ = false;
};

class CondVar {
 public:
  CondVar();
  ~CondVar();
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;
  void notify_one();
  void notify_all();
  // Releases the lock while waiting, holds it again on return. May wake spuriously.
  void wait(UniqueLock& lock);
  // As wait, at most `ms` milliseconds; false when the time ran out.
  bool wait_for(UniqueLock& lock, uint32_t ms);

  template <class Pred>
  void wait(UniqueLock& lock, Pred ready) {
    while (!ready()) wait(lock);
  }
  // Waits until ready() or `ms` elapsed (on the monotonic clock); returns ready().
  template <class Pred>
  bool wait_for(UniqueLock& lock, uint32_t ms, Pred ready) {
    const uint64_t deadline = monotonic_ms() + ms;
    while (!ready()) {
      const uint64_t now = monotonic_ms();
      if (now >= deadline) return ready();
      wait_for(lock, static_cast<uint32_t>(deadline - now));
    }
    return true;
  }

 private:
  alignas(8) unsigned char raw_[kCondVarStorage];
};

// ---- sockets (the BSD subset lwIP also offers) ----
using Socket = int;
constexpr Socket kNoSocket = -1;
// Returns kNoSocket and sets *err (a negative K32_ERR_* style errno) on failure.
Socket tcp_listen(const char* bind_ip, uint16_t port, int backlog, int* err);
Socket tcp_accept(Socket listener, char* peer_ip, size_t peer_ip_cap);
// Connects with a deadline; err receives -ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH ...
Socket tcp_connect(const char* ip, uint16_t port, uint32_t timeout_ms, int* err);
// >0 bytes, 0 on orderly close, <0 on error; -ETIMEDOUT when timeout_ms elapsed.
int tcp_recv(Socket s, void* buf, size_t len, uint32_t timeout_ms);
// Sends everything or fails; returns false on error.
bool tcp_send_all(Socket s, const void* buf, size_t len);
void tcp_close(Socket s);
void tcp_shutdown(Socket s);
// Half-close: no more sending; the peer reads end-of-stream, answers still arrive.
void tcp_shutdown_write(Socket s);
bool local_ip_of(Socket s, char* ip, size_t cap);
// First byte waiting on the socket without consuming it; -ETIMEDOUT when none arrived,
// 0x100 when the peer closed, other negatives on error. (Tells TLS from plain HTTP.)
int tcp_peek(Socket s, uint32_t timeout_ms);
// True when the peer has closed the connection (nothing consumed, never blocks).
bool tcp_peer_closed(Socket s);
// True when bytes are waiting to be read (nothing consumed, never blocks; false at end of stream).
bool tcp_readable(Socket s);
// Waits up to timeout_ms (0: only looks) until one of n sockets is ready: a listener when a
// connection waits to be accepted, a connection when bytes, its end or an error arrived (the
// next tcp_recv does not block). Sets ready[i] for each; returns how many are ready, -ETIMEDOUT
// when none became so, other negatives on error. One thread can serve several connections
// and accept new ones with it (the simulator's console). At most kWaitSocketsMax sockets (the
// platform's wait list is on the caller's stack): a layout constant, not a budget.
constexpr size_t kWaitSocketsMax = 8;
int tcp_wait_readable(const Socket* socks, bool* ready, size_t n, uint32_t timeout_ms);
// True when the other end of an accepted loopback connection is a socket owned by the
// user this process runs as (the kernel's socket table says who). The simulator's TCP
// console stands in for a board's UART, which needs physical access; this keeps other
// users of the host out of it. False when the owner cannot be established.
bool tcp_peer_same_user(Socket s);
// Resolves a host name to dotted IPv4 with the node's resolver.
bool resolve_ipv4(const char* host, char* ip, size_t cap, uint32_t timeout_ms);

// ---- files (the state store; flash/LittleFS on boards) ----
// Reads a whole file; returns false when it does not exist.
bool file_read(const char* path, char** data, size_t* len);  // *data freed with mem_free
// Replaces a file atomically and durably (temp + fsync + rename + fsync dir).
bool file_write_atomic(const char* path, const void* data, size_t len);
// Appends and syncs; the write is durable when this returns true.
bool file_append_sync(const char* path, const void* data, size_t len);
bool file_remove(const char* path);
bool dir_ensure(const char* path);
int64_t file_size(const char* path);  // -1 when missing

// ---- TLS (mbedTLS on both platforms) ----
struct TlsServer;
struct TlsSession;
// Loads the node's API identity from dir (api.crt, api.key), creating it on first boot:
// a self-signed ECDSA P-256 certificate for `ip` (SAN) that clients pin as their CA.
// Writes the certificate's path into cert_path. False (with err) when TLS is unavailable.
bool tls_identity_ensure(const char* dir, const char* ip, char* cert_path, size_t cap, char* err, size_t errcap);
TlsServer* tls_server_new(const char* dir, char* err, size_t errcap);
// Runs the server handshake on an accepted socket; nullptr when it fails.
TlsSession* tls_accept(TlsServer* srv, Socket s, uint32_t timeout_ms);
int tls_recv(TlsSession* t, void* buf, size_t len, uint32_t timeout_ms);  // as tcp_recv
bool tls_send_all(TlsSession* t, const void* buf, size_t len);
void tls_session_free(TlsSession* t);  // sends close_notify; the socket stays open

// ---- SHA-256 (image digests, bundle checks) ----
// Boards hash with mbedTLS, which drives the chip's SHA accelerator; the simulator with the
// host's mbedTLS; a port without mbedTLS with its own FIPS 180-4 code. The platform's context
// lives in the storage below (no heap), checked by a static_assert in each port; the size is
// that of the largest context (ESP-IDF's hardware one), a layout constant, not a budget.
constexpr size_t kSha256Bytes = 32;
constexpr size_t kSha256Storage = 128;

class Sha256 {
 public:
  Sha256();  // ready for update()
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t len);
  // Writes the digest; the object is then spent (construct a new one for another message).
  void finish(uint8_t out[kSha256Bytes]);

 private:
  alignas(8) unsigned char raw_[kSha256Storage];
};

// The digest of one buffer as 64 lowercase hex digits and a NUL.
inline void sha256_hex(const void* data, size_t len, char hex[2 * kSha256Bytes + 1]) {
  uint8_t d[kSha256Bytes];
  Sha256 h;
  h.update(data, len);
  h.finish(d);
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < kSha256Bytes; ++i) {
    hex[2 * i] = digits[d[i] >> 4];
    hex[2 * i + 1] = digits[d[i] & 0xf];
  }
  hex[2 * kSha256Bytes] = '\0';
}

// ---- randomness ----
void random_fill(void* buf, size_t len);

// ---- system ----
// Restarts the node (esp_restart on boards; the simulator re-executes its own binary
// with the same arguments). Does not return.
[[noreturn]] void system_restart();

// ---- logs ----
// One line, without newline; the sink adds its own framing (stderr, UART).
void log_line(const char* line);

}  // namespace port
}  // namespace k32

// ---- TLS client (the control plane's https:// calls; TLS 1.2, chain checked against the
// firmware's CA bundle and the URL's host) ----
namespace k32 {
namespace port {
struct TlsClient;
enum class TlsFail : uint8_t { None = 0, Cert, Handshake, Timeout, Io };
// The trust store: the platform's bundle (boards: ESP-IDF's common CA subset; simulator:
// the OS roots) plus an optional extra PEM file (the simulator's --egress-ca). May be
// called again to replace it. False with err when a file cannot be read or parsed.
bool tls_client_trust(const char* extra_pem_path, char* err, size_t errcap);
// TLS 1.2 handshake over a connected socket within timeout_ms: SNI for DNS names, the
// chain to the trust store, the certificate naming `host` (DNS name or IPv4 address),
// validity dates only once wall_clock_set(). nullptr on failure, with *fail and a reason.
TlsClient* tls_client_connect(Socket s, const char* host, uint32_t timeout_ms, TlsFail* fail, char* reason, size_t reason_cap);
int tls_client_recv(TlsClient* t, void* buf, size_t len, uint32_t timeout_ms);  // as tcp_recv
bool tls_client_send_all(TlsClient* t, const void* buf, size_t len);
void tls_client_free(TlsClient* t);  // sends close_notify; the socket stays open
}  // namespace port
}  // namespace k32

// ---- outgoing connections from a chosen local address ----
namespace k32 {
namespace port {
// As tcp_connect, but from `local_ip` (the node's own address), so a peer that checks the
// source (the egress gateway's node-InternalIP rule) sees the node. On boards the node has
// one address; the simulator's nodes share the host and differ only by loopback address.
Socket tcp_connect_from(const char* local_ip, const char* ip, uint16_t port, uint32_t timeout_ms, int* err);
}  // namespace port
}  // namespace k32
