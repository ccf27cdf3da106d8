// X-Kube32-* headers carry the cluster's own routing and authentication between nodes
// (the target pod, the call chain, the node token). They are trusted only from a node, so
// every request that arrives from outside the cluster loses them before it is routed.
#pragma once
#include <string>
#include <vector>

#include "core/http/http_message.h"

namespace k32 {
namespace http {

// True for a header name starting with "X-Kube32-" in any letter case (no allocation).
bool is_internal_header(const std::string& name);

// Removes every X-Kube32-* header in place; returns how many were removed. Runs on every
// ingress request, so it compares in place and never allocates.
size_t strip_internal_headers(std::vector<Header>* headers);

}  // namespace http
}  // namespace k32
