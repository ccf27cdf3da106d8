// Validation as kube-apiserver does it for the served kinds, and their defaulting.
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

// Fills server-set defaults for a new object (and on update for fields that must keep them).
void apply_defaults(const ResourceInfo& r, json::Value* obj);
// Appends field errors; an empty result means valid.
void validate_object(const ResourceInfo& r, const json::Value& obj, FieldErrors* errs);
// Checks name syntax for the kind; returns the error text or "".
std::string validate_name(const ResourceInfo& r, const std::string& name);

}  // namespace api
}  // namespace k32
