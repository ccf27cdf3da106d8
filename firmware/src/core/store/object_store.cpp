#include "core/store/object_store.h"

#include <cstring>

#include "core/util/crc32.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace store {

namespace {
const char kSep = '\x1f';

void set_rv(json::Value* obj, uint64_t rv) {
  obj->at_or_insert("metadata").set("resourceVersion", text::to_string(static_cast<int64_t>(rv)));
}

void put_u32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
}  // namespace

std::string ObjectStore::key(const std::string& r, const std::string& ns, const std::string& n) {
  std::string k = r;
  k.push_back(kSep);
  k += ns;
  k.push_back(kSep);
  k += n;
  return k;
}

bool ObjectStore::open(const std::string& dir, std::string* err) {
  std::lock_guard<std::mutex> lock(mu_);
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

bool ObjectStore::load(std::string* err) {
  char* data = nullptr;
  size_t len = 0;
  if (port::file_read(snap_path_.c_str(), &data, &len)) {
    json::Value snap;
    json::ParseError pe;
    bool ok = json::parse(data, len, &snap, &pe);
    port::mem_free(data);
    if (!ok || !snap.is_object()) {
      *err = "state snapshot " + snap_path_ + " is corrupt: " + pe.message;
      return false;
    }
    rv_ = static_cast<uint64_t>(snap["rv"].as_int());
    for (const auto& it : snap["items"].items()) {
      objects_[key(it["r"].str(), it["n"].str(), it["m"].str())] =
          Entry{it["o"], static_cast<uint64_t>(it["o"].path_str({"metadata", "resourceVersion"}).empty()
                                                    ? 0
                                                    : std::strtoull(it["o"].path_str({"metadata", "resourceVersion"}).c_str(), nullptr, 10))};
    }
  }
  if (port::file_read(log_path_.c_str(), &data, &len)) {
    size_t pos = 0;
    size_t good_end = 0;
    uint32_t replayed = 0;
    while (pos + 8 <= len) {
      uint32_t n = get_u32(data + pos);
      uint32_t crc = get_u32(data + pos + 4);
      if (pos + 8 + n > len || crc32(data + pos + 8, n) != crc) break;
      json::Value rec;
      json::ParseError pe;
      if (!json::parse(data + pos + 8, n, &rec, &pe)) break;
      uint64_t rv = static_cast<uint64_t>(rec["v"].as_int());
      std::string k = key(rec["r"].str(), rec["n"].str(), rec["m"].str());
      if (rec["t"].str() == "d") objects_.erase(k);
      else objects_[k] = Entry{rec["o"], rv};
      if (rv > rv_) rv_ = rv;
      pos += 8 + n;
      good_end = pos;
      ++replayed;
    }
    if (good_end != len) {
      // A torn tail from a crash mid-append: it was never acknowledged, so drop it.
      logf("[STORE] dropping %zu bytes of an incomplete record at the end of %s", len - good_end, log_path_.c_str());
      if (!port::file_write_atomic(log_path_.c_str(), data, good_end)) {
        port::mem_free(data);
        *err = "cannot repair " + log_path_;
        return false;
      }
    }
    port::mem_free(data);
    (void)replayed;
  }
  // History before this start is gone: watches from older versions get 410 Gone.
  dropped_upto_ = rv_;
  return true;
}

bool ObjectStore::persist(const char* op, const std::string& r, const std::string& ns, const std::string& n,
                          uint64_t rv, const json::Value* obj) {
  if (dir_.empty()) return true;
  json::Value rec = json::Value::object();
  rec.set("t", op);
  rec.set("r", r);
  rec.set("n", ns);
  rec.set("m", n);
  rec.set("v", static_cast<int64_t>(rv));
  if (obj) rec.set("o", *obj);
  std::string payload = json::dump(rec);
  std::string frame;
  put_u32(&frame, static_cast<uint32_t>(payload.size()));
  put_u32(&frame, crc32(payload.data(), payload.size()));
  frame += payload;
  return port::file_append_sync(log_path_.c_str(), frame.data(), frame.size());
}

void ObjectStore::maybe_compact_locked() {
  if (dir_.empty() || port::file_size(log_path_.c_str()) < kCompactBytes) return;
  json::Value snap = json::Value::object();
  snap.set("rv", static_cast<int64_t>(rv_));
  json::Value& items = snap.set("items", json::Value::array());
  for (const auto& kv : objects_) {
    auto parts = text::split(kv.first, kSep);
    json::Value it = json::Value::object();
    it.set("r", parts[0]);
    it.set("n", parts[1]);
    it.set("m", parts[2]);
    it.set("o", kv.second.obj);
    items.push(std::move(it));
  }
  std::string bytes = json::dump(snap);
  // Snapshot first, then empty the log: replaying old records over a newer snapshot is
  // harmless because records are whole-object puts/deletes applied in rv order.
  if (port::file_write_atomic(snap_path_.c_str(), bytes.data(), bytes.size()))
    port::file_write_atomic(log_path_.c_str(), "", 0);
}

uint64_t ObjectStore::current_rv() {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_;
}

bool ObjectStore::get(const std::string& r, const std::string& ns, const std::string& n, json::Value* out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return false;
  *out = it->second.obj;
  return true;
}

std::vector<json::Value> ObjectStore::list(const std::string& r, const std::string& ns, uint64_t* rv) {
  std::lock_guard<std::mutex> lock(mu_);
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
  if (type != EventType::Deleted) set_rv(&obj, rv);
  else set_rv(&obj, rv);
  if (!persist(type == EventType::Deleted ? "d" : "p", r, ns, n, rv, type == EventType::Deleted ? nullptr : &obj))
    return Result::IoError;
  rv_ = rv;
  std::string k = key(r, ns, n);
  if (type == EventType::Deleted) objects_.erase(k);
  else objects_[k] = Entry{obj, rv};
  ev->type = type;
  ev->resource = r;
  ev->ns = ns;
  ev->name = n;
  ev->rv = rv;
  ev->object = std::move(obj);
  history_.push_back(*ev);
  while (history_.size() > kHistory) {
    dropped_upto_ = history_.front().rv;
    history_.pop_front();
  }
  maybe_compact_locked();
  cv_.notify_all();
  return Result::Ok;
}

void ObjectStore::notify(const Event& ev) {
  std::vector<Listener> ls;
  {
    std::lock_guard<std::mutex> lock(listeners_mu_);
    ls = listeners_;
  }
  for (auto& l : ls) l(ev);
}

Result ObjectStore::create(const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                           json::Value* stored) {
  Event ev;
  std::unique_lock<std::mutex> lock(mu_);
  if (objects_.count(key(r, ns, n))) return Result::Exists;
  Result res = commit_locked(EventType::Added, r, ns, n, std::move(obj), &ev);
  if (res != Result::Ok) return res;
  if (stored) *stored = ev.object;
  std::lock_guard<std::recursive_mutex> order(notify_mu_);
  lock.unlock();
  notify(ev);
  return Result::Ok;
}

Result ObjectStore::update(const std::string& r, const std::string& ns, const std::string& n, json::Value obj,
                           uint64_t expected_rv, json::Value* stored) {
  Event ev;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return Result::NotFound;
  if (expected_rv != 0 && it->second.rv != expected_rv) return Result::Conflict;
  Result res = commit_locked(EventType::Modified, r, ns, n, std::move(obj), &ev);
  if (res != Result::Ok) return res;
  if (stored) *stored = ev.object;
  std::lock_guard<std::recursive_mutex> order(notify_mu_);
  lock.unlock();
  notify(ev);
  return Result::Ok;
}

Result ObjectStore::remove(const std::string& r, const std::string& ns, const std::string& n, uint64_t expected_rv,
                           json::Value* removed) {
  Event ev;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = objects_.find(key(r, ns, n));
  if (it == objects_.end()) return Result::NotFound;
  if (expected_rv != 0 && it->second.rv != expected_rv) return Result::Conflict;
  json::Value last = it->second.obj;
  Result res = commit_locked(EventType::Deleted, r, ns, n, std::move(last), &ev);
  if (res != Result::Ok) return res;
  if (removed) *removed = ev.object;
  std::lock_guard<std::recursive_mutex> order(notify_mu_);
  lock.unlock();
  notify(ev);
  return Result::Ok;
}

void ObjectStore::events_since(uint64_t since, std::vector<Event>* out, bool* expired) {
  std::lock_guard<std::mutex> lock(mu_);
  *expired = since < dropped_upto_;
  if (*expired) return;
  for (const auto& ev : history_)
    if (ev.rv > since) out->push_back(ev);
}

bool ObjectStore::wait_newer(uint64_t since, uint32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return rv_ > since; });
}

void ObjectStore::add_listener(Listener l) {
  std::lock_guard<std::mutex> lock(listeners_mu_);
  listeners_.push_back(std::move(l));
}

}  // namespace store
}  // namespace k32
