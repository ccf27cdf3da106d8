#include "core/console/console.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "core/console/console_sessions.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace console {

namespace {
constexpr size_t kMaxLine = K32_CONSOLE_LINE_MAX;
constexpr char kPrefix[] = "K32_CMD:";

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

ParseResult parse_line(const std::string& raw, Command* out, std::string* err) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (!text::starts_with(line, kPrefix)) return ParseResult::NotACommand;
  std::string rest = line.substr(sizeof kPrefix - 1);
  size_t sp = rest.find(' ');
  out->name = rest.substr(0, sp);
  if (out->name.empty() || out->name.size() > 32) {
    *err = "missing or overlong command name";
    out->name.clear();
    return ParseResult::Malformed;
  }
  for (char c : out->name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      *err = "command names are upper-case letters, digits and '_'";
      // Not echoed in the answer: a CR or LF in it would split the one answer line in two.
      out->name.clear();
      return ParseResult::Malformed;
    }
  }
  out->arg = json::Value();
  if (sp != std::string::npos) {
    std::string a = text::trim(rest.substr(sp + 1));
    if (!a.empty()) {
      json::ParseError pe;
      if (!json::parse(a, &out->arg, &pe)) {
        *err = "argument is not valid JSON: " + pe.message;
        return ParseResult::Malformed;
      }
      if (!out->arg.is_object()) {
        *err = "argument must be a JSON object";
        return ParseResult::Malformed;
      }
    }
  }
  return ParseResult::Ok;
}

namespace {

class StringSink : public json::ByteSink {
 public:
  explicit StringSink(std::string* s) : s_(s) {}
  bool write(const char* data, size_t len) override {
    s_->append(data, len);
    return true;
  }

 private:
  std::string* s_;
};

// The serial console's answers go to stdout; a board's UART driver sends them on.
class StdoutSink : public json::ByteSink {
 public:
  bool write(const char* data, size_t len) override { return std::fwrite(data, 1, len, stdout) == len; }
};

// Kept out of answer()'s frame (noinline): the writer's buffer would otherwise sit below
// every command, the deepest (a setting's write) included.
__attribute__((noinline)) void answer_streamed(const std::string& name, const StreamedHandler& h, const json::Value& arg,
                                               json::ByteSink* out) {
  json::Writer w(out);
  static constexpr char kResp[] = "K32_RESP:";
  w.raw(kResp, sizeof kResp - 1);
  w.raw(name.data(), name.size());
  w.raw(" OK ", 4);
  h(arg, w);
  w.flush();
}

}  // namespace

std::string Dispatcher::reply_line(ParseResult pr, const Command& cmd, const std::string& err) {
  std::string name = cmd.name.empty() ? "?" : cmd.name;
  if (pr == ParseResult::Malformed) return "K32_RESP:" + name + " ERR " + one_line(err);
  auto it = handlers_.find(cmd.name);
  if (it == handlers_.end()) return "K32_RESP:" + name + " ERR unknown command " + name;
  Reply r = it->second(cmd.arg);
  if (!r.ok) return "K32_RESP:" + name + " ERR " + one_line(r.message);
  std::string out = "K32_RESP:" + name + " OK";
  if (!r.data.is_null()) out += " " + json::dump(r.data);
  return out;
}

bool Dispatcher::answer(const std::string& line, json::ByteSink* out) {
  Command cmd;
  std::string err;
  ParseResult pr = parse_line(line, &cmd, &err);
  if (pr == ParseResult::NotACommand) return false;
  if (pr == ParseResult::Ok) {
    auto s = streamed_.find(cmd.name);
    if (s != streamed_.end()) {
      answer_streamed(cmd.name, s->second, cmd.arg, out);
      return true;
    }
  }
  std::string text = reply_line(pr, cmd, err);
  out->write(text.data(), text.size());
  return true;
}

std::string Dispatcher::handle_line(const std::string& line) {
  std::string out;
  StringSink sink(&out);
  answer(line, &sink);
  return out;
}

namespace {

void stdin_main(void* p) {
  Dispatcher* d = static_cast<Dispatcher*>(p);
  // The line buffer is on the heap: on the thread's stack its 4 KiB plus the deepest
  // command (a setting written as JSON) did not fit the console's stack budget.
  std::vector<char> buf(kMaxLine);
  StdoutSink out;
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), stdin)) {
    if (!d->answer(buf.data(), &out)) continue;
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
}

}  // namespace

bool serve(Dispatcher* d, const std::string& bind_ip, uint16_t port, uint32_t max_conns, std::string* err) {
  if (port == 0)
    return port::thread_start("console", K32_CONSOLE_STACK_BYTES, static_cast<port::Region>(K32_CONSOLE_STACK_REGION), stdin_main,
                              d);
  int e = 0;
  port::Socket l = port::tcp_listen(bind_ip.c_str(), port, 4, &e);
  if (l == port::kNoSocket) {
    *err = "console: cannot listen on " + bind_ip + ":" + text::to_string(port) + ": " + std::strerror(-e);
    return false;
  }
  if (serve_sessions(d, l, max_conns)) return true;
  port::tcp_close(l);
  *err = "console: no heap for its thread";
  return false;
}

}  // namespace console
}  // namespace k32
