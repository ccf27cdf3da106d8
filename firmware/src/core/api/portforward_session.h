// One kubectl port-forward session after its upgrade: SPDY/3.1 streams, read either straight
// from the connection (kubectl before 1.30, or when WebSockets are off) or from the binary
// messages of a WebSocket (kubectl 1.30 and later tunnel the same SPDY bytes through one).
// kubectl opens an error stream and a data stream per local connection; the bytes of a data
// stream are HTTP requests, each one delivered to the pod's k32_handle through `call` and its
// answer written back as bytes. The session runs on its API connection's thread, checks
// every frame, and is bounded by K32_PORTFORWARD_* (streams, frame and request sizes, idle
// and frame deadlines).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/http/http_client.h"
#include "core/http/http_message.h"

namespace k32 {
namespace api {

// Delivers one HTTP request to the pod; returns what the pod answered (or a gateway error).
using PodCall = std::function<http::ClientResponse(const http::Request& rq)>;

struct PortForwardTarget {
  std::string pod;              // "<ns>/<name>", for messages
  std::vector<uint16_t> ports;  // the pod's declared container ports; empty: any port
  PodCall call;
};

enum class TunnelKind { Spdy, WebSocket };

// Runs the session until the client leaves, a deadline passes or a frame is invalid.
void run_port_forward(http::Conn* conn, TunnelKind kind, const PortForwardTarget& target);

// The WebSocket channel protocol ("v4.channel.k8s.io", what client libraries such as the
// Python client use): one connection per port in `ports`, each port a data channel 2i and an
// error channel 2i+1 whose first message is the port number; every binary message starts
// with its channel byte. Ends when the client closes, a request asks to close, a deadline
// passes or a frame is invalid.
void run_channel_port_forward(http::Conn* conn, const std::vector<uint16_t>& ports, const PortForwardTarget& target);

}  // namespace api
}  // namespace k32
