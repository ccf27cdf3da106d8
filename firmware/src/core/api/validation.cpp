#include "core/api/validation.h"

#include <cctype>
#include <cstdlib>

#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace api {

const char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char kDns1035Msg[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool is_qualified_name_part(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  if (!std::isalnum(static_cast<unsigned char>(s.front())) || !std::isalnum(static_cast<unsigned char>(s.back()))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

bool is_label_value(const std::string& v) { return v.empty() || is_qualified_name_part(v); }

bool is_config_key(const std::string& k) {
  if (k.empty() || k.size() > 253 || k == "." || k == "..") return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

bool is_base64(const std::string& s) {
  if (s.size() % 4 != 0) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/') continue;
    if (c == '=' && i >= s.size() - 2) continue;
    return false;
  }
  return true;
}

}  // namespace

std::string invalid_value(const std::string& s) { return "Invalid value: \"" + s + "\": "; }

bool is_label_key(const std::string& k) {
  size_t slash = k.find('/');
  if (slash == std::string::npos) return is_qualified_name_part(k);
  std::string prefix = k.substr(0, slash);
  return is_dns1123_subdomain(prefix) && is_qualified_name_part(k.substr(slash + 1));
}

void validate_string_map(const json::Value& m, const std::string& path, bool values_are_labels, FieldErrors* errs) {
  if (m.is_null()) return;
  if (!m.is_object()) {
    errs->push_back({path, "Invalid value: must be a map of strings"});
    return;
  }
  size_t total = 0;
  for (const auto& kv : m.members()) {
    if (!kv.second.is_string()) {
      errs->push_back({path + "[" + kv.first + "]", "Invalid value: must be a string"});
      continue;
    }
    total += kv.first.size() + kv.second.str().size();
    if (!is_label_key(kv.first))
      errs->push_back({path, invalid_value(kv.first) + "name part must consist of alphanumeric characters, '-', '_' or '.', "
                                                       "and must start and end with an alphanumeric character"});
    if (values_are_labels && !is_label_value(kv.second.str()))
      errs->push_back({path, invalid_value(kv.second.str()) + "a valid label must be an empty string or consist of "
                                                              "alphanumeric characters, '-', '_' or '.', and must start and "
                                                              "end with an alphanumeric character"});
  }
  if (!values_are_labels && total > K32_ANNOTATIONS_TOTAL_MAX)
    errs->push_back(
        {path, "Too long: must have at most " + text::to_string(static_cast<int64_t>(K32_ANNOTATIONS_TOTAL_MAX)) + " bytes"});
}

bool port_number(const json::Value& v) { return v.is_int() && v.as_int() >= 1 && v.as_int() <= 65535; }

void validate_int_or_port_name(const json::Value& v, const std::string& path, FieldErrors* errs) {
  if (v.is_null()) return;
  if (v.is_int()) {
    if (!port_number(v)) errs->push_back({path, "Invalid value: " + json::dump(v) + ": must be between 1 and 65535, inclusive"});
  } else if (v.is_string()) {
    if (!is_port_name(v.str()))
      errs->push_back(
          {path, invalid_value(v.str()) +
                     "must be an IANA_SVC_NAME (at most 15 characters, matching regex [a-z0-9]([a-z0-9-]*[a-z0-9])*,it must "
                     "contain at least one letter [a-z], and hyphens cannot be adjacent to other hyphens)"});
  } else {
    errs->push_back({path, "Invalid value: must be an integer or a port name"});
  }
}

void validate_protocol(const json::Value& v, const std::string& path, FieldErrors* errs) {
  if (v.is_null()) return;
  std::string p = v.as_string();
  if (p != "TCP" && p != "UDP" && p != "SCTP")
    errs->push_back({path, "Unsupported value: \"" + p + "\": supported values: \"SCTP\", \"TCP\", \"UDP\""});
}

// metav1.LabelSelector as kube-apiserver validates it: label keys and values, known
// operators, values exactly when the operator needs them.
void validate_label_selector(const json::Value& sel, const std::string& path, FieldErrors* errs) {
  if (sel.is_null()) return;
  validate_string_map(sel["matchLabels"], path + ".matchLabels", true, errs);
  const json::Value& exprs = sel["matchExpressions"];
  for (size_t i = 0; i < exprs.items().size(); ++i) {
    const json::Value& e = exprs.items()[i];
    std::string ep = path + ".matchExpressions[" + text::to_string(static_cast<int64_t>(i)) + "]";
    std::string key = e["key"].as_string();
    if (!is_label_key(key))
      errs->push_back({ep + ".key", invalid_value(key) + "name part must consist of alphanumeric characters, '-', '_' or "
                                                         "'.', and must start and end with an alphanumeric character"});
    std::string op = e["operator"].as_string();
    bool needs_values = op == "In" || op == "NotIn";
    if (!needs_values && op != "Exists" && op != "DoesNotExist")
      errs->push_back({ep + ".operator", "Invalid value: \"" + op + "\": not a valid selector operator"});
    else if (needs_values && e["values"].items().empty())
      errs->push_back({ep + ".values", "Required value: must be specified when `operator` is 'In' or 'NotIn'"});
    else if (!needs_values && !e["values"].items().empty())
      errs->push_back({ep + ".values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"});
  }
}

void validate_data_map(const json::Value& m, const std::string& path, bool base64, FieldErrors* errs) {
  if (m.is_null()) return;
  if (!m.is_object()) {
    errs->push_back({path, "Invalid value: must be a map"});
    return;
  }
  for (const auto& kv : m.members()) {
    if (!is_config_key(kv.first))
      errs->push_back({path, invalid_value(kv.first) +
                                 "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                                 "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"});
    if (!kv.second.is_string()) errs->push_back({path + "[" + kv.first + "]", "Invalid value: must be a string"});
    else if (base64 && !is_base64(kv.second.str()))
      errs->push_back({path + "[" + kv.first + "]", "Invalid value: illegal base64 data"});
  }
}

bool is_dns1123_label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

bool is_dns1123_subdomain(const std::string& s) {
  // Kubernetes' subdomain check limits the whole name to 253 characters, not each part to a
  // label's 63: a 100-character ConfigMap or Secret name is valid.
  if (s.empty() || s.size() > 253) return false;
  for (const auto& part : text::split(s, '.')) {
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part)
      if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

bool is_dns1035_label(const std::string& s) { return is_dns1123_label(s) && s[0] >= 'a' && s[0] <= 'z'; }

bool is_port_name(const std::string& s) {
  if (s.empty() || s.size() > 15) return false;
  bool letter = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') letter = true;
    else if (!(c >= '0' && c <= '9') && c != '-') return false;
    if (c == '-' && (i == 0 || i + 1 == s.size() || s[i - 1] == '-')) return false;
  }
  return letter;
}

bool is_quantity(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0, dots = 0;
  for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); ++i) (s[i] == '.' ? dots : digits)++;
  if (!digits || dots > 1) return false;
  std::string suffix = s.substr(i);
  static const char* const kSuffixes[] = {"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  for (const char* x : kSuffixes)
    if (suffix == x) return true;
  // Decimal exponent: "1e3", "5E-2".
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
  size_t j = (suffix[1] == '+' || suffix[1] == '-') ? 2 : 1;
  if (j >= suffix.size()) return false;
  for (; j < suffix.size(); ++j)
    if (suffix[j] < '0' || suffix[j] > '9') return false;
  return true;
}

void validate_resource_list(const json::Value& m, const std::string& path, FieldErrors* errs) {
  if (m.is_null()) return;
  if (!m.is_object()) {
    errs->push_back({path, "Invalid value: must be a map of resource names to quantities"});
    return;
  }
  for (const auto& kv : m.members()) {
    std::string p = path + "[" + kv.first + "]";
    if (!is_label_key(kv.first))
      errs->push_back({p, invalid_value(kv.first) + "must be a standard resource type or fully qualified"});
    std::string q = kv.second.is_string() ? kv.second.str() : kv.second.is_number() ? json::dump(kv.second) : "";
    if (!is_quantity(q))
      errs->push_back({p, invalid_value(q) + "quantities must match the regular expression "
                                             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"});
    else if (q[0] == '-') errs->push_back({p, invalid_value(q) + "must be greater than or equal to 0"});
  }
}

std::string validate_name(const ResourceInfo& r, const std::string& name) {
  switch (r.strategy->name_rule) {
    case NameRule::Label: return is_dns1123_label(name) ? "" : invalid_value(name) + kLabelMsg;
    case NameRule::Dns1035Label: return is_dns1035_label(name) ? "" : invalid_value(name) + kDns1035Msg;
    case NameRule::Subdomain: break;
  }
  return is_dns1123_subdomain(name) ? "" : invalid_value(name) + kSubdomainMsg;
}

void validate_object(const ResourceInfo& r, const json::Value& obj, FieldErrors* errs) {
  const json::Value& md = obj["metadata"];
  std::string name = md["name"].as_string();
  if (name.empty()) errs->push_back({"metadata.name", "Required value: name or generateName is required"});
  else {
    std::string e = validate_name(r, name);
    if (!e.empty()) errs->push_back({"metadata.name", e});
  }
  validate_string_map(md["labels"], "metadata.labels", true, errs);
  validate_string_map(md["annotations"], "metadata.annotations", false, errs);
  if (r.strategy->validate) r.strategy->validate(obj, errs);
}

void apply_defaults(const ResourceInfo& r, json::Value* obj) {
  obj->at_or_insert("metadata");
  if (r.strategy->defaults) r.strategy->defaults(obj);
}

}  // namespace api
}  // namespace k32
