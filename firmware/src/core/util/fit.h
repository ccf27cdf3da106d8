// Giving a vector's spare capacity back. std::vector::shrink_to_fit does nothing in a build
// without exceptions (libstdc++ only tries it where it could catch a failed copy), so the
// elements are moved into a vector reserved at their count instead.
#pragma once
#include <utility>

namespace k32 {
namespace util {

template <class V>
void fit_capacity(V* v) {
  if (v->capacity() == v->size()) return;
  V fitted;
  fitted.reserve(v->size());
  for (auto& x : *v) fitted.push_back(std::move(x));
  v->swap(fitted);
}

}  // namespace util
}  // namespace k32
