#include "core/console/console.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/http/conn_reader.h"
#include "k32_board.h"
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

std::string Dispatcher::handle_line(const std::string& line) {
  Command cmd;
  std::string err;
  ParseResult pr = parse_line(line, &cmd, &err);
  if (pr == ParseResult::NotACommand) return "";
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

namespace {

struct ListenArg {
  Dispatcher* d;
  port::Socket l;
  uint32_t max_conns;
  std::atomic<uint32_t> open{0};
};

struct ClientArg {
  ListenArg* listener;
  port::Socket s;
};

void client_main(void* p) {
  ClientArg* a = static_cast<ClientArg*>(p);
  for (;;) {
    std::string line;
    // Serial consoles end lines with \n or \r\n; read to \n.
    std::string buf;
    char c;
    bool closed = false;
    // A line must be complete within CONSOLE_IDLE_MS of the last one: a client that went
    // quiet (or trickles bytes) would otherwise hold one of the few slots for good.
    const uint64_t deadline = port::monotonic_ms() + K32_CONSOLE_IDLE_MS;
    for (;;) {
      const uint64_t now = port::monotonic_ms();
      int n = now < deadline ? port::tcp_recv(a->s, &c, 1, static_cast<uint32_t>(deadline - now)) : -ETIMEDOUT;
      if (n <= 0) {
        closed = true;
        break;
      }
      if (c == '\n') break;
      if (buf.size() < kMaxLine) buf.push_back(c);
    }
    if (closed) break;
    std::string answer = a->listener->d->handle_line(buf);
    if (answer.empty()) continue;
    answer += "\r\n";
    if (!port::tcp_send_all(a->s, answer.data(), answer.size())) break;
  }
  port::tcp_close(a->s);
  a->listener->open.fetch_sub(1);
  delete a;
}

// One answer line, then the connection is closed (the client learns why).
void refuse(port::Socket s, const std::string& why) {
  std::string line = "K32_RESP:? ERR " + why + "\r\n";
  port::tcp_send_all(s, line.data(), line.size());
  port::tcp_close(s);
}

void accept_main(void* p) {
  ListenArg* a = static_cast<ListenArg*>(p);
  for (;;) {
    port::Socket s = port::tcp_accept(a->l, nullptr, 0);
    if (s == port::kNoSocket) {
      port::sleep_ms(50);
      continue;
    }
    // The console sets the token and Wi-Fi and reboots the node: on a board that takes
    // the UART (physical access); here only the user running the node may connect.
    if (!port::tcp_peer_same_user(s)) {
      refuse(s, "the console serves the user who started this node only");
      continue;
    }
    if (a->open.fetch_add(1) >= a->max_conns) {
      a->open.fetch_sub(1);
      refuse(s, "console busy: " + text::to_string(static_cast<int64_t>(a->max_conns)) + " connections are open");
      continue;
    }
    ClientArg* c = new ClientArg{a, s};
    if (!port::thread_start("console", K32_CONSOLE_STACK_BYTES, static_cast<port::Region>(K32_CONSOLE_STACK_REGION), client_main,
                            c)) {
      a->open.fetch_sub(1);
      port::tcp_close(s);
      delete c;
    }
  }
}

void stdin_main(void* p) {
  Dispatcher* d = static_cast<Dispatcher*>(p);
  // The line buffer is on the heap: on the thread's stack its 4 KiB plus the deepest
  // command (a setting written as JSON) did not fit the console's stack budget.
  std::vector<char> buf(kMaxLine);
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), stdin)) {
    std::string answer = d->handle_line(buf.data());
    if (answer.empty()) continue;
    std::printf("%s\n", answer.c_str());
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
  return port::thread_start("console-accept", K32_CONSOLE_ACCEPT_STACK_BYTES,
                            static_cast<port::Region>(K32_CONSOLE_ACCEPT_STACK_REGION), accept_main,
                            new ListenArg{d, l, max_conns});
}

}  // namespace console
}  // namespace k32
