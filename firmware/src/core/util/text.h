// Small string and time helpers shared by the core.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace k32 {
namespace text {

std::vector<std::string> split(const std::string& s, char sep);
std::string trim(const std::string& s);
std::string lower(std::string s);
bool starts_with(const std::string& s, const std::string& prefix);
bool ends_with(const std::string& s, const std::string& suffix);
bool iequals(const std::string& a, const std::string& b);
// Parses a non-negative decimal integer; false on any other text or overflow past max.
bool parse_uint(const std::string& s, uint64_t max, uint64_t* out);
// Query-string decoding: %XX escapes and '+' for a space.
std::string url_decode(const std::string& s);
// Path decoding: %XX escapes only ('+' stays '+').
std::string percent_decode(const std::string& s);
// True when s is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF):
// what a JSON string may hold, so everything stored as JSON is checked with it first.
bool valid_utf8(const std::string& s);
// RFC 3339 UTC with seconds precision, as Kubernetes prints metav1.Time.
std::string rfc3339(int64_t unix_s);
// RFC 3339 with microseconds (metav1.MicroTime), from milliseconds.
std::string rfc3339_micro(int64_t unix_ms);
// Parses RFC 3339 UTC ("2026-11-30T18:43:16Z", fractions and offsets accepted); -1 on error.
int64_t parse_rfc3339(const std::string& s);
// kubectl's duration.HumanDuration: "5s", "3m20s", "2d5h", "4y".
std::string human_duration(int64_t seconds);
// A random RFC 4122 version-4 UUID.
std::string uuid4();
std::string to_string(int64_t v);
std::string hex(const uint8_t* data, size_t len);

}  // namespace text
}  // namespace k32
