#pragma once
#include <cstdint>
#include <string>

namespace k32 {
// Standard base64 with padding (Secret data, bearer tokens in tests).
std::string base64_encode(const std::string& in);
// False on characters outside the alphabet or bad padding.
bool base64_decode(const std::string& in, std::string* out);
}  // namespace k32
