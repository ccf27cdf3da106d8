// Events expire, as kube-apiserver's --event-ttl makes them: without it a cluster that runs long
// enough fills the store's budget with Events and then refuses every new object.
#pragma once
#include <cstdint>

#include "core/store/object_store.h"

namespace k32 {
namespace store {

// Deletes every Event last seen (lastTimestamp, else eventTime, else creationTimestamp) more
// than ttl_s seconds before now_s; returns how many.
int expire_events(ObjectStore* st, int64_t now_s, int64_t ttl_s);

}  // namespace store
}  // namespace k32
