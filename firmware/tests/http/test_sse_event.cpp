// Server-Sent Events records built from what pods publish: every CR, LF or CRLF in the payload
// starts a new "data:" line (an EventSource ends lines at each of them), and an event name
// that would end its line early becomes "message", so a payload cannot forge an event.
#include <string>

#include "check.h"
#include "core/http/sse_event.h"

using namespace k32;

int main() {
  CHECK_EQ(http::sse_event("hello", "{\"n\":1}"), std::string("event: hello\ndata: {\"n\":1}\n\n"));
  CHECK_EQ(http::sse_event("m", ""), std::string("event: m\ndata: \n\n"));
  CHECK_EQ(http::sse_event("m", "a\nb"), std::string("event: m\ndata: a\ndata: b\n\n"));
  CHECK_EQ(http::sse_event("m", "a\rb"), std::string("event: m\ndata: a\ndata: b\n\n"));
  CHECK_EQ(http::sse_event("m", "a\r\nb"), std::string("event: m\ndata: a\ndata: b\n\n"));
  CHECK_EQ(http::sse_event("m", "a\n\nevent: x"), std::string("event: m\ndata: a\ndata: \ndata: event: x\n\n"));
  CHECK_EQ(http::sse_event("m", "end\n"), std::string("event: m\ndata: end\ndata: \n\n"));

  CHECK(http::sse_event_name_ok("tick"));
  CHECK(!http::sse_event_name_ok(""));
  CHECK(!http::sse_event_name_ok("a\nb"));
  CHECK(!http::sse_event_name_ok("a\rb"));
  CHECK(!http::sse_event_name_ok(std::string("a\0b", 3)));
  CHECK_EQ(http::sse_event("x\n\ndata: forged", "{}"), std::string("event: message\ndata: {}\n\n"));
  TEST_MAIN_END();
}
