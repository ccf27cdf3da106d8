// Accept-Encoding negotiation (RFC 9110 §12.5.3): whether a client takes a given coding.
#pragma once
#include <string>

namespace k32 {
namespace http {

// True when `header` (the Accept-Encoding value, or nullptr when absent) lists `coding`
// (or "*") with a q-value above zero. "gzip;q=0" refuses gzip; an explicit entry for the
// coding wins over "*". Codings compare case-insensitively.
bool accepts_encoding(const std::string* header, const char* coding);

}  // namespace http
}  // namespace k32
