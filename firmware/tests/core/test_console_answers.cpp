// The console answers each command with exactly one line: the host reads one line per
// command, so a second line would be taken as the answer to its next command. Malformed
// command names (which may hold a CR or any byte) are not echoed back.
#include <string>

#include "check.h"
#include "core/console/console.h"

using namespace k32;

static bool one_line(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

int main() {
  console::Dispatcher d;
  d.add("STATUS", [](const json::Value&) { return console::Reply{true, json::Value(), ""}; });
  // A CR inside the name (a UART line with a stray CR before the LF that ends it).
  std::string a = d.handle_line("K32_CMD:KUKUUS\r\x88"
                                "boot noise");
  CHECK(a.rfind("K32_RESP:? ERR", 0) == 0);
  CHECK(one_line(a));
  // An overlong name with a CR in it.
  std::string b = d.handle_line("K32_CMD:" + std::string(40, 'A') + "\rB");
  CHECK(b.rfind("K32_RESP:? ERR", 0) == 0);
  CHECK(one_line(b));
  // A name with a lower-case letter: refused, and the name is not repeated.
  std::string c = d.handle_line("K32_CMD:STATUs");
  CHECK_EQ(c, std::string("K32_RESP:? ERR command names are upper-case letters, digits and '_'"));
  // A valid name is still echoed, as the protocol says.
  CHECK_EQ(d.handle_line("K32_CMD:STATUS"), std::string("K32_RESP:STATUS OK"));
  TEST_MAIN_END();
}
