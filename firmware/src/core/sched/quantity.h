// Kubernetes resource quantities ("64Ki", "1Mi", "100M", "2", "500m") as integers.
#pragma once
#include <cstdint>
#include <string>

namespace k32 {
namespace sched {

// Parses a quantity into its value in base units, rounded up (so "500m" of a count is 1);
// false when malformed or larger than INT64_MAX.
bool parse_quantity(const std::string& s, int64_t* out);

}  // namespace sched
}  // namespace k32
