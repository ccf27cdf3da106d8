// The node console: `K32_CMD:<NAME>[ <json-object>]` lines in, one
// `K32_RESP:<NAME> OK[ <json>]` / `K32_RESP:<NAME> ERR <message>` line out (docs/console.md).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "core/json/json.h"
#include "core/json/json_writer.h"

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
// A command whose OK answer (its JSON) is written to `out` as it is produced, within the
// writer's fixed buffer, instead of being built whole first: the node's STATUS, whose tree
// and string together held up to 8 KiB for a moment. It always answers OK.
using StreamedHandler = std::function<void(const json::Value& arg, json::Writer& out)>;

class Dispatcher {
 public:
  void add(const std::string& name, CommandHandler h) { handlers_[name] = std::move(h); }
  void add_streamed(const std::string& name, StreamedHandler h) { streamed_[name] = std::move(h); }
  // Writes the answer line for one input line to `out` (without its line end); false, with
  // nothing written, when the line is not a command.
  bool answer(const std::string& line, json::ByteSink* out);
  // The same answer line as a string; empty when the line is not a command.
  std::string handle_line(const std::string& line);

 private:
  // The answer line of a command with a Reply (or of a malformed line).
  __attribute__((noinline)) std::string reply_line(ParseResult pr, const Command& cmd, const std::string& err);
  std::map<std::string, CommandHandler> handlers_;
  std::map<std::string, StreamedHandler> streamed_;
};

// Serves the console on stdin/stdout (port 0) or on a TCP port; returns false on bind
// failure. Either way it is one thread of `console_stack`, as a board's UART console is. A
// TCP console answers only connections of the user running the node
// (port::tcp_peer_same_user) and at most max_conns (up to CONSOLE_CONN_MAX) at a time,
// all on that thread; others get one ERR line.
bool serve(Dispatcher* d, const std::string& bind_ip, uint16_t port, uint32_t max_conns, std::string* err);

}  // namespace console
}  // namespace k32
