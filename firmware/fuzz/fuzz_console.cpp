// libFuzzer target: arbitrary bytes -> console lines (K32_CMD:<NAME> <json>), through the same
// Dispatcher the node uses. Every answer must be exactly one line starting with K32_RESP:
// (a second line would be read by the host as the answer to its next command).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/console/console.h"
#include "fuzz_check.h"

using namespace k32;

namespace {
console::Dispatcher* make_dispatcher() {
  auto* d = new console::Dispatcher;
  // ECHO answers with its argument, so whatever the parser accepted is serialised back out.
  d->add("ECHO", [](const json::Value& arg) { return console::Reply{true, arg, ""}; });
  // FAIL echoes the argument into an ERR message, as handlers do with what they refuse.
  d->add("FAIL", [](const json::Value& arg) { return console::Reply{false, json::Value(), arg["why"].as_string()}; });
  return d;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static console::Dispatcher* d = make_dispatcher();
  std::string input(reinterpret_cast<const char*>(data), size);
  // One input may hold several lines, as a console stream does.
  size_t pos = 0;
  while (pos <= input.size()) {
    size_t nl = input.find('\n', pos);
    std::string line = input.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    console::Command cmd;
    std::string err;
    console::ParseResult pr = console::parse_line(line, &cmd, &err);
    if (pr == console::ParseResult::Malformed) FUZZ_CHECK(!err.empty(), "refusal without a message");
    if (pr == console::ParseResult::Ok) FUZZ_CHECK(cmd.arg.is_null() || cmd.arg.is_object(), "argument kind");
    std::string answer = d->handle_line(line);
    FUZZ_CHECK((pr == console::ParseResult::NotACommand) == answer.empty(), "answer for a non-command or none");
    if (!answer.empty()) {
      FUZZ_CHECK(answer.compare(0, 9, "K32_RESP:") == 0, "answer does not start with K32_RESP:");
      FUZZ_CHECK(answer.find_first_of("\r\n") == std::string::npos, "answer spans lines: %s", answer.c_str());
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return 0;
}
