#include "app/channel_routes.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "core/http/conn_reader.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace app {

bool valid_topic(const std::string& t) {
  if (t.empty() || t.size() > K32_CHANNEL_TOPIC_MAX) return false;
  for (char c : t)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

namespace {

void status_error(http::ResponseWriter& w, int code, const char* reason, const std::string& msg) {
  api::ApiError e{code, reason, msg, json::Value()};
  w.send(code, "application/json", json::dump(api::status_object(e)));
}

}  // namespace

void mount_channel_routes(api::ApiServer* api, channels::Hub* hub) {
  api->add_route([hub](http::Request& req, http::ResponseWriter& w, const api::RequestInfo*) {
    const std::string prefix = std::string(kChannelsPath) + "/";
    if (req.method == "POST" && text::starts_with(req.path, prefix)) {
      std::string topic = req.path.substr(prefix.size());
      if (!valid_topic(topic)) {
        status_error(w, 400, "BadRequest",
                     "invalid channel topic \"" + topic + "\": 1 to " +
                         text::to_string(static_cast<int64_t>(K32_CHANNEL_TOPIC_MAX)) + " of A-Z a-z 0-9 . _ -");
        return true;
      }
      json::Value msg;
      json::ParseError pe;
      if (req.body.size() > kMaxChannelMessage) {
        status_error(w, 413, "RequestEntityTooLarge",
                     "channel messages are limited to " + text::to_string(static_cast<int64_t>(kMaxChannelMessage)) + " bytes");
        return true;
      }
      // application/octet-stream: the bytes as they are (a worker's k32_channel_publish,
      // whose payload is bytes as on the control plane); anything else is a JSON message.
      const std::string* ct = req.header("Content-Type");
      bool raw = ct && text::lower(text::trim(text::split(*ct, ';')[0])) == "application/octet-stream";
      if (!raw && !json::parse(req.body, &msg, &pe)) {
        status_error(w, 400, "BadRequest", "channel message is not JSON: " + pe.message);
        return true;
      }
      size_t n = hub->publish(topic, raw ? req.body : json::dump(msg));
      json::Value r = json::Value::object();
      r.set("topic", topic);
      r.set("delivered", static_cast<int64_t>(n));
      w.send(200, "application/json", json::dump(r));
      return true;
    }
    if (req.method == "GET" && req.path == kChannelsPath) {
      std::vector<std::string> topics;
      for (const auto& t : text::split(req.query_param("topics"), ',')) {
        if (t.empty()) continue;
        if (!valid_topic(t)) {
          status_error(w, 400, "BadRequest", "invalid channel topic \"" + t + "\"");
          return true;
        }
        topics.push_back(t);
      }
      if (topics.empty()) {
        status_error(w, 400, "BadRequest", "topics=<a,b,...> is required");
        return true;
      }
      auto sub = hub->subscribe(topics);
      bool ok = w.begin_stream(200, "application/json");
      uint64_t last_write = port::monotonic_ms();
      while (ok) {
        channels::Message m;
        if (sub->next(&m, K32_CHANNEL_POLL_MS)) {
          // {"topic":...,"payload":...} written straight into one buffer, framed as a chunk
          // in place: every published message passes here once per subscribed worker. The
          // room reserved: the JSON around the two strings, and the chunk's size line.
          std::string line;
          line.reserve(m.topic.size() + m.payload.size() + 32 + 2 * sizeof(size_t) + 4);
          line.append("{\"topic\":", 9);
          json::append_escaped(m.topic, &line);
          line.append(",\"payload\":", 11);
          json::append_escaped(m.payload, &line);
          line.append("}\n", 2);
          ok = w.write_chunk_in_place(&line);
          last_write = port::monotonic_ms();
        } else if (port::tcp_peer_closed(w.socket())) {
          break;
        } else if (port::monotonic_ms() - last_write > K32_CHANNEL_KEEPALIVE_MS) {
          ok = w.write_chunk("\n");  // keep-alive line: proxies and the bridge see a live stream
          last_write = port::monotonic_ms();
        }
      }
      hub->unsubscribe(sub);
      w.end_stream();
      w.close_after();
      return true;
    }
    return false;
  });
}

bool ChannelBridge::publish(const std::string& topic, const std::string& payload) {
  std::vector<http::Header> headers{{"Content-Type", "application/octet-stream"}};
  std::string tok = token_();
  if (!tok.empty()) headers.push_back({"Authorization", "Bearer " + tok});
  http::ClientResponse resp;
  int rc = http::request(cp_, "POST", std::string(kChannelsPath) + "/" + topic, headers, payload, K32_CHANNEL_PUBLISH_MS,
                         K32_CHANNEL_PUBLISH_REPLY_MAX, &resp);
  return rc == 0 && resp.status == 200;
}

void ChannelBridge::run(std::function<std::set<std::string>()> wanted) {
  for (;;) {
    std::set<std::string> topics = wanted();
    if (topics.empty()) return;
    std::string list;
    for (const auto& t : topics) list += (list.empty() ? "" : ",") + t;
    int err = 0;
    port::Socket s = port::tcp_connect(cp_.host.c_str(), cp_.port, K32_CHANNEL_CONNECT_MS, &err);
    if (s == port::kNoSocket) {
      port::sleep_ms(K32_CHANNEL_RETRY_MS);
      continue;
    }
    http::Conn conn(s);
    std::string req = "GET " + std::string(kChannelsPath) + "?topics=" + list + " HTTP/1.1\r\nHost: " + cp_.host + "\r\n";
    std::string tok = token_();
    if (!tok.empty()) req += "Authorization: Bearer " + tok + "\r\n";
    req += "\r\n";
    http::ConnReader reader(&conn);
    std::string head;
    if (!conn.send_all(req.data(), req.size()) ||
        reader.read_head(&head, K32_HTTP_CLIENT_HEAD_MAX, K32_CHANNEL_READ_MS) != http::ReadStatus::Ok ||
        head.find(" 200 ") == std::string::npos) {
      port::tcp_close(s);
      port::sleep_ms(K32_CHANNEL_RETRY_MS);
      continue;
    }
    // Chunked lines; re-subscribe when the wanted set changes.
    uint64_t next_check = port::monotonic_ms() + K32_CHANNEL_POLL_MS;
    std::string pending;
    for (;;) {
      // The stream is outside input too: a chunk, or a line built of chunks, longer than any
      // the control plane writes ends this subscription (it is made again) instead of growing.
      http::ReadStatus st = reader.wait_data(K32_CHANNEL_POLL_MS);
      if (st == http::ReadStatus::Timeout) {
        if (wanted() != topics) break;
        continue;
      }
      std::string part;
      bool last = false;
      if (st != http::ReadStatus::Ok ||
          reader.read_chunk(&part, K32_CHANNEL_LINE_MAX, K32_CHANNEL_READ_MS, &last) != http::ReadStatus::Ok || last ||
          pending.size() + part.size() > K32_CHANNEL_LINE_MAX)
        break;
      pending += part;
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        std::string one = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        json::Value msg;
        json::ParseError pe;
        if (!one.empty() && json::parse(one, &msg, &pe)) local_->publish(msg["topic"].as_string(), msg["payload"].as_string());
      }
      if (port::monotonic_ms() >= next_check) {
        next_check = port::monotonic_ms() + K32_CHANNEL_POLL_MS;
        if (wanted() != topics) break;
      }
    }
    port::tcp_close(s);
  }
}

}  // namespace app
}  // namespace k32
