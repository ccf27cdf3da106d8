// Label selectors (labelSelector query and metav1.LabelSelector) and field selectors.
#pragma once
#include <string>
#include <vector>

#include "core/json/json.h"

namespace k32 {
namespace api {

struct Requirement {
  enum Op { Eq, NotEq, In, NotIn, Exists, NotExists } op;
  std::string key;
  std::vector<std::string> values;
};

struct LabelSelector {
  std::vector<Requirement> reqs;  // all must hold; empty matches everything
  bool matches(const json::Value& labels) const;
};

// Parses "app=web,tier!=db,env in (a,b),!legacy,has"; false with *err on bad syntax.
bool parse_label_selector(const std::string& text, LabelSelector* out, std::string* err);
// metav1.LabelSelector {matchLabels, matchExpressions}; false with *err when malformed.
bool label_selector_from_json(const json::Value& sel, LabelSelector* out, std::string* err);
// Renders a metav1.LabelSelector as kubectl prints it ("app=web", "<none>").
std::string format_label_selector(const json::Value& sel);

struct FieldSelector {
  struct Term {
    std::string path;  // "metadata.name", "spec.nodeName", "involvedObject.uid"
    std::string value;
    bool negate;
  };
  std::vector<Term> terms;
  bool matches(const json::Value& obj) const;
};
bool parse_field_selector(const std::string& text, FieldSelector* out, std::string* err);

}  // namespace api
}  // namespace k32
