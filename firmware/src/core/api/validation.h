// Validation as kube-apiserver does it: the generic part every kind shares (metadata, name
// syntax) and the field checks several kinds' strategies (kinds/*.cpp) build on.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/api/resources.h"
#include "core/json/json.h"

namespace k32 {
namespace api {

using FieldErrors = std::vector<std::pair<std::string, std::string>>;

bool is_dns1123_label(const std::string& s);
bool is_dns1123_subdomain(const std::string& s);
bool is_dns1035_label(const std::string& s);
// IANA_SVC_NAME: at most 15 characters, lowercase alphanumerics and '-', at least one letter.
bool is_port_name(const std::string& s);
// A label or annotation key: [prefix/]name, the prefix a DNS subdomain.
bool is_label_key(const std::string& k);

// kube-apiserver's messages for the name rules, so errors read as on a real cluster.
extern const char kSubdomainMsg[];
extern const char kLabelMsg[];
extern const char kDns1035Msg[];
// "Invalid value: \"<s>\": " — the prefix of a field error about a string value.
std::string invalid_value(const std::string& s);

// Field checks shared by several kinds; each appends to *errs under `path`.
bool port_number(const json::Value& v);  // an integer 1..65535
void validate_string_map(const json::Value& m, const std::string& path, bool values_are_labels, FieldErrors* errs);
void validate_int_or_port_name(const json::Value& v, const std::string& path, FieldErrors* errs);
void validate_protocol(const json::Value& v, const std::string& path, FieldErrors* errs);
// metav1.LabelSelector: label keys and values, known operators, values exactly when needed.
void validate_label_selector(const json::Value& sel, const std::string& path, FieldErrors* errs);
// A Kubernetes quantity ("500m", "64Mi", "1e3", "2"): the form kube-apiserver accepts.
bool is_quantity(const std::string& s);
// A ResourceList (limits, requests, quota hard/used): qualified resource names mapped to
// non-negative quantities.
void validate_resource_list(const json::Value& m, const std::string& path, FieldErrors* errs);
// ConfigMap/Secret data: config keys; values strings, base64 when `base64`.
void validate_data_map(const json::Value& m, const std::string& path, bool base64, FieldErrors* errs);

// Fills server-set defaults for a new object (and on update for fields that must keep them).
void apply_defaults(const ResourceInfo& r, json::Value* obj);
// Appends field errors; an empty result means valid.
void validate_object(const ResourceInfo& r, const json::Value& obj, FieldErrors* errs);
// Checks name syntax for the kind; returns the error text or "".
std::string validate_name(const ResourceInfo& r, const std::string& name);

}  // namespace api
}  // namespace k32
