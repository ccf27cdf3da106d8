#include "core/store/event_ttl.h"

#include "core/util/text.h"

namespace k32 {
namespace store {

namespace {
int64_t last_seen_s(const json::Value& ev) {
  for (const char* f : {"lastTimestamp", "eventTime"}) {
    int64_t t = text::parse_rfc3339(ev[f].as_string());
    if (t >= 0) return t;
  }
  return text::parse_rfc3339(ev["metadata"]["creationTimestamp"].as_string());
}
}  // namespace

int expire_events(ObjectStore* st, int64_t now_s, int64_t ttl_s) {
  int removed = 0;
  for (const auto& ev : st->list("events", "", nullptr)) {
    int64_t seen = last_seen_s(ev);
    if (seen < 0 || now_s - seen <= ttl_s) continue;
    json::Value gone;
    // Only the version we looked at: an Event updated meanwhile (count++) is seen again.
    uint64_t rv = 0;
    text::parse_uint(ev["metadata"]["resourceVersion"].as_string(), UINT64_MAX, &rv);
    if (st->remove("events", ev["metadata"]["namespace"].as_string(), ev["metadata"]["name"].as_string(), rv, &gone) ==
        Result::Ok)
      ++removed;
  }
  return removed;
}

}  // namespace store
}  // namespace k32
