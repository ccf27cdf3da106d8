// The kubelet's view of its node's pods, read without holding the whole list parsed: a pod
// list of a few pods with their full status is tens of KiB as a JSON tree, more than a
// classic ESP32 keeps spare beside its pods. The list body is scanned for its items, each
// item is parsed alone and cut down to the fields the kubelet reads (pod_view), so the
// peak is the body plus one pod, and what each running pod keeps is its small view.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace kubelet {

// Calls fn(text, len) with the raw JSON of each element of the top-level "items" array of
// `body`, in order, without parsing the rest; stops early when fn returns false. False when
// `body` is not a JSON object with an "items" array (or is cut short).
bool for_each_list_item(const std::string& body, const std::function<bool(const char*, size_t)>& fn);

// The list's continue token (metadata.continue of `body`, the server's mark for the next
// page), or "" when this page is the last (or `body` is not a list).
std::string list_continue(const std::string& body);

// `pod` cut down to what the kubelet reads: metadata (name, namespace, uid, labels,
// annotations, resourceVersion, deletion fields, ownerReferences), the whole spec (env,
// containers, restartPolicy) and of the status only phase, conditions and qosClass (the
// status it writes is rebuilt from its own records).
json::Value pod_view(json::Value pod);

}  // namespace kubelet
}  // namespace k32
