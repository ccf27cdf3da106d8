#include "core/kubelet/pod_list.h"

#include <cstring>

namespace k32 {
namespace kubelet {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void skip_space(const std::string& s, size_t* i) {
  while (*i < s.size() && space(s[*i])) ++*i;
}

// *i at an opening quote: past the closing one. False when the string never ends.
bool skip_string(const std::string& s, size_t* i) {
  for (size_t k = *i + 1; k < s.size(); ++k) {
    if (s[k] == '\\') {
      ++k;
    } else if (s[k] == '"') {
      *i = k + 1;
      return true;
    }
  }
  return false;
}

// *i at the start of a value: past its end. Iterative (a depth counter, no recursion), so a
// deep document costs no stack; the parse of each item enforces the depth limit.
bool skip_value(const std::string& s, size_t* i) {
  if (*i >= s.size()) return false;
  if (s[*i] == '"') return skip_string(s, i);
  if (s[*i] != '{' && s[*i] != '[') {
    while (*i < s.size() && !space(s[*i]) && s[*i] != ',' && s[*i] != '}' && s[*i] != ']') ++*i;
    return true;
  }
  size_t depth = 0;
  while (*i < s.size()) {
    char c = s[*i];
    if (c == '"') {
      if (!skip_string(s, i)) return false;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) {
        ++*i;
        return true;
      }
    }
    ++*i;
  }
  return false;
}

}  // namespace

bool for_each_list_item(const std::string& body, const std::function<bool(const char*, size_t)>& fn) {
  size_t i = 0;
  skip_space(body, &i);
  if (i >= body.size() || body[i] != '{') return false;
  ++i;
  for (;;) {
    skip_space(body, &i);
    if (i < body.size() && body[i] == '}') return false;  // no "items"
    if (i >= body.size() || body[i] != '"') return false;
    size_t key_start = i + 1;
    if (!skip_string(body, &i)) return false;
    bool items = i - key_start - 1 == 5 && std::memcmp(body.data() + key_start, "items", 5) == 0;
    skip_space(body, &i);
    if (i >= body.size() || body[i] != ':') return false;
    ++i;
    skip_space(body, &i);
    if (items) {
      if (i >= body.size()) return false;
      if (body.compare(i, 4, "null") == 0) return true;
      if (body[i] != '[') return false;
      ++i;
      for (;;) {
        skip_space(body, &i);
        if (i < body.size() && body[i] == ']') return true;
        size_t start = i;
        if (!skip_value(body, &i)) return false;
        if (!fn(body.data() + start, i - start)) return true;
        skip_space(body, &i);
        if (i < body.size() && body[i] == ',') ++i;
        else if (i >= body.size() || body[i] != ']') return false;
      }
    }
    if (!skip_value(body, &i)) return false;
    skip_space(body, &i);
    if (i < body.size() && body[i] == ',') ++i;
  }
}

std::string list_continue(const std::string& body) {
  size_t i = 0;
  skip_space(body, &i);
  if (i >= body.size() || body[i] != '{') return "";
  ++i;
  for (;;) {
    skip_space(body, &i);
    if (i >= body.size() || body[i] != '"') return "";
    size_t key_start = i + 1;
    if (!skip_string(body, &i)) return "";
    bool metadata = i - key_start - 1 == 8 && std::memcmp(body.data() + key_start, "metadata", 8) == 0;
    skip_space(body, &i);
    if (i >= body.size() || body[i] != ':') return "";
    ++i;
    skip_space(body, &i);
    size_t start = i;
    if (!skip_value(body, &i)) return "";
    if (metadata) {
      // The list's own metadata is small (resourceVersion, continue, remainingItemCount).
      json::Value md;
      json::ParseError pe;
      if (!json::parse(body.substr(start, i - start), &md, &pe)) return "";
      return md["continue"].as_string();
    }
    skip_space(body, &i);
    if (i < body.size() && body[i] == ',') ++i;
  }
}

json::Value pod_view(json::Value pod) {
  json::keep_only(&pod, {"metadata", "spec", "status"});
  json::keep_only(&pod.at_or_insert("metadata"), {"name", "namespace", "uid", "labels", "annotations", "resourceVersion",
                                                  "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences"});
  json::keep_only(&pod.at_or_insert("status"), {"phase", "conditions", "qosClass"});
  return pod;
}

}  // namespace kubelet
}  // namespace k32
