// Console lines: commands, malformed input and arbitrary bytes never change state silently.
#include "check.h"
#include "core/console/console.h"

int main() {
  k32::console::Dispatcher d;
  std::string token;
  d.add("TOKEN", [&](const k32::json::Value& arg) {
    const k32::json::Value* t = arg.find("token");
    if (!t || !t->is_string()) return k32::console::Reply{false, k32::json::Value(), "TOKEN needs a token"};
    token = t->str();
    return k32::console::Reply{true, k32::json::Value(), ""};
  });
  CHECK_EQ(d.handle_line("hello world"), std::string(""));
  CHECK_EQ(d.handle_line("K32_CMD:TOKEN {\"token\":\"a b \\\" \xc3\xa9\"}\r\n"), std::string("K32_RESP:TOKEN OK"));
  CHECK_EQ(token, std::string("a b \" \xc3\xa9"));
  CHECK(d.handle_line("K32_CMD:TOKEN {bad json").find("K32_RESP:TOKEN ERR argument is not valid JSON") == 0);
  CHECK(d.handle_line("K32_CMD:TOKEN [1]").find("ERR argument must be a JSON object") != std::string::npos);
  CHECK(d.handle_line("K32_CMD:TOKEN").find("ERR TOKEN needs a token") != std::string::npos);
  CHECK(d.handle_line("K32_CMD:NOPE").find("K32_RESP:NOPE ERR unknown command") == 0);
  CHECK(d.handle_line("K32_CMD:").find("ERR") != std::string::npos);
  CHECK(d.handle_line("K32_CMD:lower").find("ERR") != std::string::npos);
  CHECK_EQ(token, std::string("a b \" \xc3\xa9"));
  // Arbitrary bytes after the prefix: always exactly one ERR/OK line, never a crash.
  uint32_t seed = 7;
  for (int i = 0; i < 5000; ++i) {
    std::string line = "K32_CMD:TOKEN ";
    for (int k = 0; k < 40; ++k) {
      seed = seed * 1664525u + 1013904223u;
      line.push_back(static_cast<char>(seed >> 24));
    }
    std::string out = d.handle_line(line);
    CHECK(out.find("K32_RESP:") == 0);
    CHECK(out.find('\n') == std::string::npos);
  }
  TEST_MAIN_END();
}
