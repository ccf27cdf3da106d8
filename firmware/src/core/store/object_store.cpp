#include "core/store/object_store.h"

#include <cstring>

#include "core/store/store_format.h"
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
  objects_[k] = Entry{std::move(obj), rv, bytes};
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

bool ObjectStore::persist(const std::string& record) {
  if (dir_.empty()) return true;
  std::string frame;
  format::append_frame(record, &frame);
  return port::file_append_sync(log_path_.c_str(), frame.data(), frame.size());
}

void ObjectStore::maybe_compact_locked() {
  if (dir_.empty() || port::file_size(log_path_.c_str()) < static_cast<int64_t>(limits_.log_max)) return;
  std::string bytes = format::snapshot_header(rv_);
  bytes.reserve(bytes.size() + used_bytes_ + objects_.size() * format::kFrameHeader);
  for (const auto& kv : objects_) {
    auto parts = text::split(kv.first, kSep);
    format::append_frame(format::encode_record('p', parts[0], parts[1], parts[2], kv.second.rv, &kv.second.obj), &bytes);
  }
  // Snapshot first, then empty the log: replaying old records over a newer snapshot is
  // harmless because records are whole-object puts/deletes applied in rv order.
  if (port::file_write_atomic(snap_path_.c_str(), bytes.data(), bytes.size())) port::file_write_atomic(log_path_.c_str(), "", 0);
}

uint64_t ObjectStore::used_bytes() {
  port::LockGuard<port::Mutex> lock(mu_);
  return used_bytes_;
}

uint64_t ObjectStore::current_rv() {
  port::LockGuard<port::Mutex> lock(mu_);
  return rv_;
}

bool ObjectStore::get(const std::string& r, const std::string& ns, const std::string& n, json::Value* out) {
  port::LockGuard<port::Mutex> lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return false;
  *out = it->second.obj;
  return true;
}

std::vector<json::Value> ObjectStore::list(const std::string& r, const std::string& ns, uint64_t* rv) {
  port::LockGuard<port::Mutex> lock(mu_);
  std::vector<json::Value> out;
  std::string prefix = r;
  prefix.push_back(kSep);
  if (!ns.empty()) {
    prefix += ns;
    prefix.push_back(kSep);
  }
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && text::starts_with(it->first, prefix); ++it)
    out.push_back(it->second.obj);
  if (rv) *rv = rv_;
  return out;
}

Result ObjectStore::commit_locked(EventType type, const std::string& r, const std::string& ns, const std::string& n,
                                  json::Value obj, Event* ev) {
  uint64_t rv = rv_ + 1;
  set_rv(&obj, rv);
  bool del = type == EventType::Deleted;
  std::string k = key(r, ns, n);
  auto it = objects_.find(k);
  uint64_t old_bytes = it == objects_.end() ? 0 : it->second.bytes;
  std::string record = format::encode_record(del ? 'd' : 'p', r, ns, n, rv, del ? nullptr : &obj);
  if (!del) {
    // Checked before anything is written: a refused write leaves the store as it was.
    if (json::depth(obj) + 1 > format::kRecordDepthMax) return Result::TooDeep;
    if (record.size() > limits_.object_max) return Result::TooLarge;
    uint64_t after = used_bytes_ - old_bytes + record.size();
    uint64_t cap = type == EventType::Added ? limits_.total_max - limits_.reserve() : limits_.total_max;
    if (record.size() > old_bytes && after > cap) return Result::NoSpace;
  }
  if (!persist(record)) return Result::IoError;
  rv_ = rv;
  used_bytes_ -= old_bytes;
  if (del) {
    objects_.erase(k);
  } else {
    used_bytes_ += record.size();
    objects_[k] = Entry{obj, rv, record.size()};
  }
  ev->type = type;
  ev->resource = r;
  ev->ns = ns;
  ev->name = n;
  ev->rv = rv;
  ev->object = std::move(obj);
  // What the event holds: a delete its last object, an update the new and the previous one.
  ev->bytes = del ? old_bytes : record.size() + (ev->prev.is_null() ? 0 : old_bytes);
  history_.push_back(*ev);
  history_bytes_ += ev->bytes;
  while (history_.size() > kHistory || (history_.size() > 1 && history_bytes_ > limits_.total_max)) {
    dropped_upto_ = history_.front().rv;
    history_bytes_ -= history_.front().bytes;
    history_.pop_front();
  }
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

Result ObjectStore::create(const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                           json::Value* stored) {
  Event ev;
  port::UniqueLock lock(mu_);
  if (objects_.count(key(r, ns, n))) return Result::Exists;
  Result res = commit_locked(EventType::Added, r, ns, n, std::move(obj), &ev);
  if (res != Result::Ok) return res;
  if (stored) *stored = ev.object;
  port::LockGuard<port::RecursiveMutex> order(notify_mu_);
  lock.unlock();
  notify(ev);
  return Result::Ok;
}

Result ObjectStore::update(const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                           uint64_t expected_rv, json::Value* stored) {
  Event ev;
  port::UniqueLock lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return Result::NotFound;
  if (expected_rv != 0 && it->second.rv != expected_rv) return Result::Conflict;
  ev.prev = it->second.obj;
  Result res = commit_locked(EventType::Modified, r, ns, n, std::move(obj), &ev);
  if (res != Result::Ok) return res;
  if (stored) *stored = ev.object;
  port::LockGuard<port::RecursiveMutex> order(notify_mu_);
  lock.unlock();
  notify(ev);
  return Result::Ok;
}

Result ObjectStore::remove(const std::string& r, const std::string& ns, const std::string& n, uint64_t expected_rv,
                           json::Value* removed) {
  Event ev;
  port::UniqueLock lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return Result::NotFound;
  if (expected_rv != 0 && it->second.rv != expected_rv) return Result::Conflict;
  json::Value last = it->second.obj;
  Result res = commit_locked(EventType::Deleted, r, ns, n, std::move(last), &ev);
  if (res != Result::Ok) return res;
  if (removed) *removed = ev.object;
  port::LockGuard<port::RecursiveMutex> order(notify_mu_);
  lock.unlock();
  notify(ev);
  return Result::Ok;
}

void ObjectStore::events_since(uint64_t since, std::vector<Event>* out, bool* expired) {
  port::LockGuard<port::Mutex> lock(mu_);
  *expired = since < dropped_upto_;
  if (*expired) return;
  for (const auto& ev : history_)
    if (ev.rv > since) out->push_back(ev);
}

bool ObjectStore::wait_newer(uint64_t since, uint32_t timeout_ms) {
  port::UniqueLock lock(mu_);
  return cv_.wait_for(lock, timeout_ms, [&] { return rv_ > since; });
}

void ObjectStore::add_listener(Listener l) {
  port::LockGuard<port::Mutex> lock(listeners_mu_);
  listeners_.push_back(std::move(l));
}

}  // namespace store
}  // namespace k32
