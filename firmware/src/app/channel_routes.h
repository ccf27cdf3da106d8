// Channels across nodes, through the API server (kube32.io/v1):
//   POST /apis/kube32.io/v1/channels/<topic>            body: a JSON message, or any bytes as
//                                                        application/octet-stream → published on the control plane
//   GET  /apis/kube32.io/v1/channels?topics=a,b          a chunked stream, one JSON line per message
// Workers publish with the first and feed their pods' subscriptions from the second
// (ChannelBridge), so a message published on any node reaches subscribers on every node.
#pragma once
#include <memory>
#include <set>
#include <string>

#include "core/api/api_server.h"
#include "core/channels/channel_hub.h"
#include "core/http/http_client.h"
#include "k32_board.h"

namespace k32 {
namespace app {

constexpr const char* kChannelsPath = "/apis/kube32.io/v1/channels";
constexpr size_t kMaxChannelMessage = K32_CHANNEL_MESSAGE_MAX;

// Mounts the two routes on the control plane's API server.
void mount_channel_routes(api::ApiServer* api, channels::Hub* hub);

// Validates a topic name: 1..128 of [A-Za-z0-9._-].
bool valid_topic(const std::string& topic);

// The worker side: publishes go to the control plane; the topics local subscribers want
// are streamed from it into the local hub.
class ChannelBridge {
 public:
  ChannelBridge(http::Endpoint cp, std::function<std::string()> token, channels::Hub* local)
      : cp_(std::move(cp)), token_(std::move(token)), local_(local) {}
  // Returns false when the control plane could not be reached or refused the message.
  bool publish(const std::string& topic, const std::string& payload);
  // Keeps one stream open for the union of `wanted` topics (re-read every second); returns
  // once no topic is wanted.
  void run(std::function<std::set<std::string>()> wanted);

 private:
  http::Endpoint cp_;
  std::function<std::string()> token_;
  channels::Hub* local_;
};

}  // namespace app
}  // namespace k32
