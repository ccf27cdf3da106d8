// One Server-Sent Events record ("event: <name>\ndata: ...\n\n") from an event name and a
// payload that come from pods (channel messages). A browser's EventSource ends a line at CR,
// LF or CRLF, so every one of them in the payload starts a new "data:" line, and a name that
// could end its line early is replaced by "message": a pod cannot forge a second event or a
// field of its own.
#pragma once
#include <string>

namespace k32 {
namespace http {

// True when `name` can stand on an "event:" line as it is (no CR, LF or NUL, not empty).
bool sse_event_name_ok(const std::string& name);

// The record for one event; `name` falls back to "message" when it is not ok.
std::string sse_event(const std::string& name, const std::string& data);

}  // namespace http
}  // namespace k32
