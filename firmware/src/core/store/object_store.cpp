#include "core/store/object_store.h"

#include <cstring>

#include "core/store/store_format.h"
#include "core/store/stored_form.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace store {

namespace {
const char kSep = '\x1f';

void set_rv(json::Value* obj, uint64_t rv) {
  obj->at_or_insert("metadata").set("resourceVersion", text::to_string(static_cast<int64_t>(rv)));
}
}  // namespace

// Kept with no spare capacity for as long as the version is current or an event names it.
ObjectStore::Blob::Blob(const json::Value& obj) : json(stored_form::encode(obj, &compact)) {}

Limits board_limits() { return Limits{K32_STORE_OBJECT_MAX_BYTES, K32_STORE_TOTAL_MAX_BYTES, K32_STORE_LOG_MAX_BYTES}; }

std::string ObjectStore::key(const std::string& r, const std::string& ns, const std::string& n) {
  std::string k = r;
  k.push_back(kSep);
  k += ns;
  k.push_back(kSep);
  k += n;
  return k;
}

bool ObjectStore::open(const std::string& dir, std::string* err) {
  port::LockGuard<port::Mutex> lock(mu_);
  dir_ = dir;
  if (dir.empty()) return true;
  if (!port::dir_ensure(dir.c_str())) {
    *err = "cannot create state directory " + dir;
    return false;
  }
  log_path_ = dir + "/objects.log";
  snap_path_ = dir + "/objects.snap";
  return load(err);
}

void ObjectStore::put_loaded(const std::string& k, json::Value obj, uint64_t rv, uint64_t bytes) {
  auto it = objects_.find(k);
  if (it != objects_.end()) used_bytes_ -= it->second.bytes;
  used_bytes_ += bytes;
  objects_[k] = Entry{std::make_shared<Blob>(obj), rv, bytes};
}

bool ObjectStore::parse_blob(const Blob& b, const std::string& k, json::Value* out) {
  json::ParseError pe;
  if (stored_form::decode(b.json, b.compact, out, &pe)) return true;
  // Only what the store itself wrote is parsed here: this is damage in memory.
  logf("[STORE] the stored form of %s does not parse: %s", k.c_str(), pe.message.c_str());
  *out = json::Value();
  return false;
}

// Reads everything before it changes anything: a file that does not load is left exactly as
// it was, for a person (or a newer firmware) to look at.
bool ObjectStore::load(std::string* err) {
  auto apply = [this](format::Record&& rec) {
    std::string k = key(rec.resource, rec.ns, rec.name);
    if (rec.op == 'd') {
      auto it = objects_.find(k);
      if (it != objects_.end()) {
        used_bytes_ -= it->second.bytes;
        objects_.erase(it);
      }
    } else {
      put_loaded(k, std::move(rec.obj), rec.rv, rec.bytes);
    }
    if (rec.rv > rv_) rv_ = rec.rv;
  };
  char* data = nullptr;
  size_t len = 0;
  if (port::file_read(snap_path_.c_str(), &data, &len)) {
    uint64_t snap_rv = 0;
    std::string why;
    bool ok = format::load_snapshot(data, len, &snap_rv, apply, &why);
    port::mem_free(data);
    if (!ok) {
      *err = "state snapshot " + snap_path_ + ": " + why + "; the store was not loaded and no file was changed";
      return false;
    }
    if (snap_rv > rv_) rv_ = snap_rv;
  }
  if (port::file_read(log_path_.c_str(), &data, &len)) {
    format::LogScan scan;
    std::string why;
    // Records are at most object_max (deletes are smaller); an older firmware without that
    // limit wrote records up to its 3 MiB request bodies, which 4x covers on every board.
    size_t max_record = static_cast<size_t>(limits_.object_max * 4);
    if (!format::scan_log(data, len, apply, &scan, &why, max_record)) {
      port::mem_free(data);
      *err = "state log " + log_path_ + ": " + why + "; the store was not loaded and no file was changed";
      return false;
    }
    if (scan.good_end != len) {
      // A torn tail from a crash mid-append: it was never acknowledged, so drop it.
      logf("[STORE] dropping %lu bytes of an incomplete last record at byte offset %lu of %s",
           static_cast<unsigned long>(len - scan.good_end), static_cast<unsigned long>(scan.good_end), log_path_.c_str());
      if (!port::file_write_atomic(log_path_.c_str(), data, scan.good_end)) {
        port::mem_free(data);
        *err = "cannot repair " + log_path_;
        return false;
      }
    }
    port::mem_free(data);
  }
  if (used_bytes_ > limits_.total_max)
    logf("[STORE] %llu bytes stored exceed the budget of %llu bytes: writes that grow the store are refused",
         static_cast<unsigned long long>(used_bytes_), static_cast<unsigned long long>(limits_.total_max));
  // History before this start is gone: watches from older versions get 410 Gone.
  dropped_upto_ = rv_;
  return true;
}

bool ObjectStore::persist(const std::string& frame) {
  if (dir_.empty()) return true;
  return port::file_append_sync(log_path_.c_str(), frame.data(), frame.size());
}

void ObjectStore::maybe_compact_locked() {
  if (dir_.empty() || port::file_size(log_path_.c_str()) < static_cast<int64_t>(limits_.log_max)) return;
  // The snapshot is a file's bytes in passing, the whole store at once (tens of KiB with ten
  // apps): it is built in PSRAM, as files read whole are, not in the internal RAM the node's
  // own structures need (a compaction during churn ran the S3's internal region out).
  const std::string header = format::snapshot_header(rv_);
  size_t cap = header.size() + used_bytes_ + objects_.size() * format::kFrameHeader, len = 0;
  char* buf = static_cast<char*>(port::mem_alloc(cap, port::Region::Psram));
  auto append = [&](const std::string& part) {
    if (!buf) return;
    if (len + part.size() > cap) {
      const size_t grown = (len + part.size()) * 2;
      char* bigger = static_cast<char*>(port::mem_alloc(grown, port::Region::Psram));
      if (bigger) std::memcpy(bigger, buf, len);
      port::mem_free(buf);
      buf = bigger;
      cap = grown;
      if (!buf) return;
    }
    std::memcpy(buf + len, part.data(), part.size());
    len += part.size();
  };
  append(header);
  for (const auto& kv : objects_) {
    auto parts = text::split(kv.first, kSep);
    json::Value obj;  // the files hold the plain form
    parse_blob(*kv.second.blob, kv.first, &obj);
    append(format::encode_frame('p', parts[0], parts[1], parts[2], kv.second.rv, &obj));
  }
  if (!buf) return;  // no room now: the log stays, and the next write tries again
  // Snapshot first, then empty the log: replaying old records over a newer snapshot is
  // harmless because records are whole-object puts/deletes applied in rv order.
  if (port::file_write_atomic(snap_path_.c_str(), buf, len)) port::file_write_atomic(log_path_.c_str(), "", 0);
  port::mem_free(buf);
}

uint64_t ObjectStore::used_bytes() {
  port::LockGuard<port::Mutex> lock(mu_);
  return used_bytes_;
}

uint64_t ObjectStore::current_rv() {
  port::LockGuard<port::Mutex> lock(mu_);
  return rv_;
}

size_t ObjectStore::history_events() {
  port::LockGuard<port::Mutex> lock(mu_);
  return history_.size();
}

uint64_t ObjectStore::history_bytes() {
  port::LockGuard<port::Mutex> lock(mu_);
  return history_bytes_;
}

// Reads parse outside the lock: the versions they copied out stay alive through their
// shared pointers, and writers are not held up by the parsing.
bool ObjectStore::get(const std::string& r, const std::string& ns, const std::string& n, json::Value* out) {
  std::string k = key(r, ns, n);
  BlobPtr b;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    auto it = objects_.find(k);
    if (it == objects_.end()) return false;
    b = it->second.blob;
  }
  return parse_blob(*b, k, out);
}

std::vector<json::Value> ObjectStore::list(const std::string& r, const std::string& ns, uint64_t* rv) {
  std::vector<json::Value> out;
  for_each(r, ns, rv, [&out](json::Value& o) {
    out.push_back(std::move(o));
    return true;
  });
  return out;
}

void ObjectStore::for_each(const std::string& r, const std::string& ns, uint64_t* rv,
                           const std::function<bool(json::Value&)>& fn) {
  std::string prefix = r;
  prefix.push_back(kSep);
  if (!ns.empty()) {
    prefix += ns;
    prefix.push_back(kSep);
  }
  // The versions current now (shared, not copied), so the list is one resourceVersion's view
  // while writes go on; each is parsed only when its turn comes.
  std::vector<BlobPtr> blobs;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    for (auto it = objects_.lower_bound(prefix); it != objects_.end() && text::starts_with(it->first, prefix); ++it)
      blobs.push_back(it->second.blob);
    if (rv) *rv = rv_;
  }
  for (size_t i = 0; i < blobs.size(); ++i) {
    json::Value o;
    parse_blob(*blobs[i], prefix, &o);
    blobs[i].reset();  // a version deleted meanwhile goes as soon as it is parsed
    if (!fn(o)) return;
  }
}

// ---- watch history accounting ----
// history_bytes_ counts what the history adds to the store's memory: every event's own
// record, and each version that is no longer current but that some event still names (a
// current version is the store's, already counted against store_total_max).
uint64_t ObjectStore::entry_overhead(const HistoryEntry& h) { return sizeof(HistoryEntry) + h.key.size(); }

void ObjectStore::retire_locked(Blob* b) {
  b->current = false;
  if (b->hist_refs > 0) history_bytes_ += b->json.size();
}

void ObjectStore::hold_locked(Blob* b) {
  if (b->hist_refs++ == 0 && !b->current) history_bytes_ += b->json.size();
}

void ObjectStore::release_locked(Blob* b) {
  if (--b->hist_refs == 0 && !b->current) history_bytes_ -= b->json.size();
}

void ObjectStore::push_history_locked(HistoryEntry h) {
  if (h.object) hold_locked(h.object.get());
  if (h.prev) hold_locked(h.prev.get());
  history_bytes_ += entry_overhead(h);
  history_.push_back(std::move(h));
  // Oldest first; the newest event stays even when it alone is over the budget, so a watch
  // that is keeping up never misses the change it is waiting for.
  while (history_.size() > 1 && history_bytes_ > limits_.history_max) {
    HistoryEntry& old = history_.front();
    dropped_upto_ = old.rv;
    history_bytes_ -= entry_overhead(old);
    if (old.object) release_locked(old.object.get());
    if (old.prev) release_locked(old.prev.get());
    history_.pop_front();
  }
}

Result ObjectStore::commit_locked(EventType type, const std::string& r, const std::string& ns, const std::string& n,
                                  json::Value obj, Event* ev) {
  uint64_t rv = rv_ + 1;
  set_rv(&obj, rv);
  bool del = type == EventType::Deleted;
  std::string k = key(r, ns, n);
  auto it = objects_.find(k);
  uint64_t old_bytes = it == objects_.end() ? 0 : it->second.bytes;
  BlobPtr old_blob = it == objects_.end() ? nullptr : it->second.blob;
  BlobPtr blob;
  std::string frame;
  if (del) {
    frame = format::encode_frame('d', r, ns, n, rv, nullptr);
  } else {
    // Checked before anything is written: a refused write leaves the store as it was.
    if (json::depth(obj) + 1 > format::kRecordDepthMax) return Result::TooDeep;
    frame = format::encode_frame('p', r, ns, n, rv, &obj);
    uint64_t record = frame.size() - format::kFrameHeader;
    if (record > limits_.object_max) return Result::TooLarge;
    uint64_t after = used_bytes_ - old_bytes + record;
    uint64_t cap = type == EventType::Added ? limits_.total_max - limits_.reserve() : limits_.total_max;
    if (record > old_bytes && after > cap) return Result::NoSpace;
  }
  if (!persist(frame)) return Result::IoError;
  uint64_t record = frame.size() - format::kFrameHeader;
  frame = std::string();
  if (!del) blob = std::make_shared<Blob>(obj);
  rv_ = rv;
  used_bytes_ -= old_bytes;
  if (old_blob) retire_locked(old_blob.get());
  if (del) {
    objects_.erase(k);
  } else {
    used_bytes_ += record;
    objects_[k] = Entry{blob, rv, record};
  }
  ev->type = type;
  ev->resource = r;
  ev->ns = ns;
  ev->name = n;
  ev->rv = rv;
  ev->object = std::move(obj);
  // A delete names the last version (events_since gives it the deletion's resourceVersion);
  // an update the new one and the one before, which filtered watches compare.
  HistoryEntry h{std::move(k), rv, del ? old_blob : blob, type == EventType::Modified ? old_blob : nullptr, type};
  push_history_locked(std::move(h));
  maybe_compact_locked();
  cv_.notify_all();
  return Result::Ok;
}

void ObjectStore::notify(const Event& ev) {
  std::vector<Listener> ls;
  {
    port::LockGuard<port::Mutex> lock(listeners_mu_);
    ls = listeners_;
  }
  for (auto& l : ls) l(ev);
}

void ObjectStore::after_write(const Event& ev) {
  std::vector<Listener> hs;
  {
    port::LockGuard<port::Mutex> lock(listeners_mu_);
    if (after_write_.empty()) return;
    hs = after_write_;
  }
  for (auto& h : hs) h(ev);
}

// Hands a committed write to the listeners: notify_mu_ is taken before the store's lock is
// let go, so listeners see writes in commit order, yet none of them runs under mu_.
void ObjectStore::publish(port::UniqueLock* lock, Event* ev, json::Value* out) {
  {
    port::LockGuard<port::RecursiveMutex> order(notify_mu_);
    lock->unlock();
    notify(*ev);
  }
  after_write(*ev);
  if (out) *out = std::move(ev->object);
}

// The caller's copy of what was stored is moved out of the event once the listeners have
// seen it: a write holds the object parsed once, not twice.
Result ObjectStore::create(const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                           json::Value* stored) {
  Event ev;
  port::UniqueLock lock(mu_);
  if (objects_.count(key(r, ns, n))) return Result::Exists;
  Result res = commit_locked(EventType::Added, r, ns, n, std::move(obj), &ev);
  if (res != Result::Ok) return res;
  publish(&lock, &ev, stored);
  return Result::Ok;
}

Result ObjectStore::update(const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                           uint64_t expected_rv, json::Value* stored) {
  Event ev;
  port::UniqueLock lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return Result::NotFound;
  if (expected_rv != 0 && it->second.rv != expected_rv) return Result::Conflict;
  Result res = commit_locked(EventType::Modified, r, ns, n, std::move(obj), &ev);
  if (res != Result::Ok) return res;
  publish(&lock, &ev, stored);
  return Result::Ok;
}

Result ObjectStore::remove(const std::string& r, const std::string& ns, const std::string& n, uint64_t expected_rv,
                           json::Value* removed) {
  Event ev;
  port::UniqueLock lock(mu_);
  std::string k = key(r, ns, n);
  auto it = objects_.find(k);
  if (it == objects_.end()) return Result::NotFound;
  if (expected_rv != 0 && it->second.rv != expected_rv) return Result::Conflict;
  json::Value last;
  parse_blob(*it->second.blob, k, &last);
  Result res = commit_locked(EventType::Deleted, r, ns, n, std::move(last), &ev);
  if (res != Result::Ok) return res;
  publish(&lock, &ev, removed);
  return Result::Ok;
}

void ObjectStore::events_since(uint64_t since, std::vector<Event>* out, bool* expired) {
  std::vector<HistoryEntry> picked;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    *expired = since < dropped_upto_;
    if (*expired) return;
    for (auto it = history_.rbegin(); it != history_.rend() && it->rv > since; ++it) picked.push_back(*it);
  }
  for (auto it = picked.rbegin(); it != picked.rend(); ++it) {
    Event ev;
    ev.type = it->type;
    ev.rv = it->rv;
    auto parts = text::split(it->key, kSep);
    ev.resource = parts[0];
    ev.ns = parts[1];
    ev.name = parts[2];
    if (it->object) parse_blob(*it->object, it->key, &ev.object);
    if (it->prev) parse_blob(*it->prev, it->key, &ev.prev);
    if (ev.type == EventType::Deleted) set_rv(&ev.object, ev.rv);
    out->push_back(std::move(ev));
  }
}

bool ObjectStore::wait_newer(uint64_t since, uint32_t timeout_ms) {
  port::UniqueLock lock(mu_);
  return cv_.wait_for(lock, timeout_ms, [&] { return rv_ > since; });
}

void ObjectStore::add_listener(Listener l) {
  port::LockGuard<port::Mutex> lock(listeners_mu_);
  listeners_.push_back(std::move(l));
}

void ObjectStore::add_after_write(Listener l) {
  port::LockGuard<port::Mutex> lock(listeners_mu_);
  after_write_.push_back(std::move(l));
}

}  // namespace store
}  // namespace k32
