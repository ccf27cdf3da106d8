#include "core/http/internal_headers.h"

#include <algorithm>

namespace k32 {
namespace http {

namespace {
constexpr char kPrefix[] = "x-kube32-";
constexpr size_t kPrefixLen = sizeof kPrefix - 1;
}  // namespace

bool is_internal_header(const std::string& name) {
  if (name.size() < kPrefixLen) return false;
  for (size_t i = 0; i < kPrefixLen; ++i) {
    char c = name[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kPrefix[i]) return false;
  }
  return true;
}

size_t strip_internal_headers(std::vector<Header>* headers) {
  auto keep_end = std::remove_if(headers->begin(), headers->end(), [](const Header& h) { return is_internal_header(h.name); });
  size_t removed = static_cast<size_t>(headers->end() - keep_end);
  headers->erase(keep_end, headers->end());
  return removed;
}

}  // namespace http
}  // namespace k32
