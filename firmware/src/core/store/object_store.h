// The object store: every API object of the cluster, with a global resourceVersion,
// a bounded event history for watches, and durable persistence (snapshot + append-only
// log, each record checksummed, so a kill -9 never loses an acknowledged write nor
// leaves a store that does not load).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/json/json.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace store {

enum class EventType : uint8_t { Added, Modified, Deleted };

// A change as watches and listeners see it, parsed from the history's stored bytes.
struct Event {
  EventType type;
  std::string resource;  // "pods", "networking.k8s.io/ingresses"
  std::string ns;
  std::string name;
  uint64_t rv;
  json::Value object;  // Deleted: the last object, its resourceVersion the deletion's
  // Modified (events_since only; listeners get null): the object before the change. A
  // filtered watch turns a change that makes an object start (stop) matching its selector
  // into ADDED (DELETED), as kube-apiserver does.
  json::Value prev;
};

// TooLarge: the object exceeds the per-object limit. NoSpace: the write would take the store past
// its budget. TooDeep: the object nests deeper than a record may (it could not be read back).
enum class Result { Ok, Exists, NotFound, Conflict, IoError, TooLarge, NoSpace, TooDeep };

// Sizes count encoded store records (an object's JSON plus ~60 bytes of key and version).
struct Limits {
  uint64_t object_max;  // one object
  uint64_t total_max;   // every object together; creates stop at 7/8 of it (see reserve())
  uint64_t log_max;     // the log is folded into the snapshot once it grows past this
  // The watch history's own memory: the versions only it still holds (superseded or deleted
  // objects) and its events' bookkeeping. The oldest events leave first.
  uint64_t history_max = K32_WATCH_HISTORY_BYTES;
  // Creates may fill the budget only up to total_max - reserve(): the rest keeps updates
  // (pod status, node heartbeats) working when clients have filled the store.
  uint64_t reserve() const { return total_max / 8; }
};
Limits board_limits();

using Listener = std::function<void(const Event&)>;

class ObjectStore {
 public:
  ObjectStore() : limits_(board_limits()) {}
  explicit ObjectStore(const Limits& limits) : limits_(limits) {}

  // dir empty: memory only. Loads what is there; a torn last record is dropped. A complete
  // record that does not load fails the open with *err naming file, record and byte offset,
  // and no file is changed.
  bool open(const std::string& dir, std::string* err);

  const Limits& limits() const { return limits_; }
  uint64_t used_bytes();

  uint64_t current_rv();
  bool get(const std::string& resource, const std::string& ns, const std::string& name, json::Value* out);
  // ns empty lists every namespace. Items come in namespace/name order.
  std::vector<json::Value> list(const std::string& resource, const std::string& ns, uint64_t* rv);
  // The same objects handed to fn one at a time, each parsed only for its call (a list
  // streamed to a client never holds every object's tree at once); fn returns false to stop.
  void for_each(const std::string& resource, const std::string& ns, uint64_t* rv, const std::function<bool(json::Value&)>& fn);

  // The store sets metadata.resourceVersion; the write is durable before these return Ok.
  Result create(const std::string& resource, const std::string& ns, const std::string& name, json::Value obj,
                json::Value* stored);
  // expected_rv 0 = unconditional.
  Result update(const std::string& resource, const std::string& ns, const std::string& name, json::Value obj,
                uint64_t expected_rv, json::Value* stored);
  Result remove(const std::string& resource, const std::string& ns, const std::string& name, uint64_t expected_rv,
                json::Value* removed);

  // Events with rv > since. *expired when history no longer reaches back that far.
  void events_since(uint64_t since, std::vector<Event>* out, bool* expired);
  // Blocks until an event newer than `since` exists or timeout; true when one does.
  bool wait_newer(uint64_t since, uint32_t timeout_ms);

  // Called after every committed change, outside the store lock, in commit order.
  void add_listener(Listener l);
  // Called after every committed change once the store's locks are released, in the writing
  // thread, before the write returns: unlike a listener it may write the store (delete what the
  // change took past a budget), so nothing sees the surplus after the write. No order between
  // concurrent writes.
  void add_after_write(Listener l);

  // What the watch history holds now: events, and bytes counted against history_max.
  size_t history_events();
  uint64_t history_bytes();

 private:
  // One version of an object, kept as its compact JSON and parsed when read: that costs a
  // third to a half of the parsed tree (see docs/api-server.md, "Memory per object"), and
  // the store's entry and every history event naming the version share the one copy.
  struct Blob {
    explicit Blob(const json::Value& obj);
    bool compact = false;  // its managedFields are in the short form (set by encode below)
    std::string json;      // stored_form::encode's bytes
    // Under mu_: the history events naming it, and whether it is still its object's
    // current version. A version only the history holds counts against history_max.
    uint32_t hist_refs = 0;
    bool current = true;
  };
  using BlobPtr = std::shared_ptr<Blob>;
  struct Entry {
    BlobPtr blob;
    uint64_t rv;
    uint64_t bytes;  // its encoded record, as counted against the budget
  };
  // What the history keeps of a change; resource, namespace and name are split from key.
  struct HistoryEntry {
    std::string key;
    uint64_t rv;
    BlobPtr object;  // Added/Modified: the new version; Deleted: the last one
    BlobPtr prev;    // Modified: the version before
    EventType type;
  };
  static std::string key(const std::string& r, const std::string& ns, const std::string& n);
  bool persist(const std::string& frame);
  bool load(std::string* err);
  void put_loaded(const std::string& k, json::Value obj, uint64_t rv, uint64_t bytes);
  static bool parse_blob(const Blob& b, const std::string& k, json::Value* out);
  // History accounting (under mu_): a version leaves the store, an event names or drops it.
  static uint64_t entry_overhead(const HistoryEntry& h);
  void retire_locked(Blob* b);
  void hold_locked(Blob* b);
  void release_locked(Blob* b);
  void push_history_locked(HistoryEntry h);
  void maybe_compact_locked();
  Result commit_locked(EventType type, const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                       Event* ev);
  void notify(const Event& ev);
  void after_write(const Event& ev);
  // After commit_locked, with `lock` holding mu_: unlocks, runs the listeners, and moves
  // the event's object to `out` (when not null).
  void publish(port::UniqueLock* lock, Event* ev, json::Value* out);

  port::Mutex mu_;
  port::CondVar cv_;
  std::map<std::string, Entry> objects_;
  // At most limits_.history_max bytes (the newest event is kept even when it alone is more).
  // Older watches get 410 Gone.
  std::deque<HistoryEntry> history_;
  uint64_t history_bytes_ = 0;
  uint64_t rv_ = 0;
  uint64_t dropped_upto_ = 0;
  Limits limits_;
  uint64_t used_bytes_ = 0;
  std::string dir_;
  std::string log_path_;
  std::string snap_path_;
  port::Mutex listeners_mu_;
  std::vector<Listener> listeners_;
  std::vector<Listener> after_write_;
  port::RecursiveMutex notify_mu_;  // keeps listener calls in commit order
};

}  // namespace store
}  // namespace k32
