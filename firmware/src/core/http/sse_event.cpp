#include "core/http/sse_event.h"

namespace k32 {
namespace http {

bool sse_event_name_ok(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (c == '\r' || c == '\n' || c == '\0') return false;
  return true;
}

std::string sse_event(const std::string& name, const std::string& data) {
  std::string out = "event: ";
  out += sse_event_name_ok(name) ? name : "message";
  out += "\ndata: ";
  out.reserve(out.size() + data.size() + 16);
  for (size_t i = 0; i < data.size(); ++i) {
    char c = data[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < data.size() && data[i + 1] == '\n') ++i;  // CRLF is one line end
      out += "\ndata: ";
    } else {
      out += c;
    }
  }
  out += "\n\n";
  return out;
}

}  // namespace http
}  // namespace k32
