// The node console: `K32_CMD:<NAME>[ <json-object>]` lines in, one
// `K32_RESP:<NAME> OK[ <json>]` / `K32_RESP:<NAME> ERR <message>` line out (docs/console.md).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace console {

struct Command {
  std::string name;
  json::Value arg;  // object or null
};

enum class ParseResult { NotACommand, Ok, Malformed };

// Lines that do not start with K32_CMD: are not commands (ignored, as a UART sees noise).
ParseResult parse_line(const std::string& line, Command* out, std::string* err);

struct Reply {
  bool ok;
  json::Value data;     // OK payload (may be null)
  std::string message;  // ERR text, one line
};

using CommandHandler = std::function<Reply(const json::Value& arg)>;

class Dispatcher {
 public:
  void add(const std::string& name, CommandHandler h) { handlers_[name] = std::move(h); }
  // Full answer line for one input line; empty when the line is not a command.
  std::string handle_line(const std::string& line);

 private:
  std::map<std::string, CommandHandler> handlers_;
};

// Serves the console on stdin/stdout (port 0) or on a TCP port; returns false on bind
// failure. A TCP console answers only connections of the user running the node
// (port::tcp_peer_same_user) and at most max_conns at a time; others get one ERR line.
bool serve(Dispatcher* d, const std::string& bind_ip, uint16_t port, uint32_t max_conns, std::string* err);

}  // namespace console
}  // namespace k32
