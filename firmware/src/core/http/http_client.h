// A blocking HTTP/1.1 client for node-to-node requests (kubelet → API server).
#pragma once
#include <string>
#include <vector>

#include "core/http/http_message.h"

namespace k32 {
namespace http {

struct ClientResponse {
  int status = 0;
  std::vector<Header> headers;
  std::string body;
  const std::string* header(const char* name) const;
};

struct Endpoint {
  std::string host;  // dotted IPv4
  uint16_t port = 0;
};

// Parses "http://IP:PORT" (no path) into an endpoint; false when malformed.
bool parse_base_url(const std::string& url, Endpoint* out);

// One request on a fresh connection. Returns a negative errno-style code on transport
// failure (-ECONNREFUSED, -ETIMEDOUT, ...), 0 on success with *out filled.
// -ENOMEM: the heap could not hold the reply (nothing was stopped; the caller retries).
int request(const Endpoint& ep, const std::string& method, const std::string& target, const std::vector<Header>& headers,
            const std::string& body, uint32_t timeout_ms, size_t max_body, ClientResponse* out);

}  // namespace http
}  // namespace k32
