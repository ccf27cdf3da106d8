// libFuzzer target: an event name and payload a pod publishes -> the Server-Sent Events record
// the Ingress streams to browsers. The record is read back as an EventSource reads a stream
// (lines end at CR, LF or CRLF; a blank line dispatches; "event:" names, "data:" appends with
// one leading space dropped) and must give exactly one event: the name as given (or "message"
// when it could not stand on its line) and the payload with its line ends made LF.
// Input: the first byte is the name's length, then the name, then the payload.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/http/sse_event.h"
#include "fuzz_check.h"

using namespace k32;

namespace {

struct Event {
  std::string name;
  std::string data;
};

std::vector<Event> read_stream(const std::string& s) {
  std::vector<Event> out;
  std::string name, data;
  bool has_data = false;
  size_t at = 0;
  while (at < s.size()) {
    size_t end = s.find_first_of("\r\n", at);
    if (end == std::string::npos) break;  // an unfinished line is not processed
    std::string line = s.substr(at, end - at);
    at = end + ((s[end] == '\r' && end + 1 < s.size() && s[end + 1] == '\n') ? 2 : 1);
    if (line.empty()) {
      if (has_data) out.push_back({name.empty() ? "message" : name, data.substr(0, data.size() - 1)});
      name.clear();
      data.clear();
      has_data = false;
      continue;
    }
    size_t colon = line.find(':');
    std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (field == "event") {
      name = value;
    } else if (field == "data") {
      data += value + "\n";
      has_data = true;
    }
  }
  return out;
}

std::string lf_line_ends(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      out += '\n';
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t name_len = data[0];
  if (name_len > size - 1) name_len = size - 1;
  const std::string name(reinterpret_cast<const char*>(data + 1), name_len);
  const std::string payload(reinterpret_cast<const char*>(data + 1 + name_len), size - 1 - name_len);
  const std::string record = http::sse_event(name, payload);
  const std::vector<Event> got = read_stream(record);
  FUZZ_CHECK(got.size() == 1, "%zu events from one record", got.size());
  const std::string want_name = http::sse_event_name_ok(name) ? name : "message";
  FUZZ_CHECK(got[0].name == want_name, "event name %s, want %s", got[0].name.c_str(), want_name.c_str());
  FUZZ_CHECK(got[0].data == lf_line_ends(payload), "payload changed on its way through the stream");
  return 0;
}
