#include "core/api/selectors.h"

#include <cctype>

#include "core/util/text.h"

namespace k32 {
namespace api {

static bool has_label(const json::Value& labels, const std::string& k, std::string* v) {
  const json::Value* x = labels.find(k);
  if (!x) return false;
  *v = x->as_string();
  return true;
}

bool LabelSelector::matches(const json::Value& labels) const {
  for (const auto& r : reqs) {
    std::string v;
    bool has = has_label(labels, r.key, &v);
    switch (r.op) {
      case Requirement::Eq:
        if (!has || v != r.values[0]) return false;
        break;
      case Requirement::NotEq:
        if (has && v == r.values[0]) return false;
        break;
      case Requirement::In: {
        if (!has) return false;
        bool found = false;
        for (const auto& x : r.values) found = found || x == v;
        if (!found) return false;
        break;
      }
      case Requirement::NotIn: {
        if (!has) break;
        for (const auto& x : r.values)
          if (x == v) return false;
        break;
      }
      case Requirement::Exists:
        if (!has) return false;
        break;
      case Requirement::NotExists:
        if (has) return false;
        break;
    }
  }
  return true;
}

// Splits on commas that are not inside parentheses.
static std::vector<std::string> split_terms(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

static bool valid_key(const std::string& k) {
  if (k.empty() || k.size() > 317) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/')) return false;
  return true;
}

bool parse_label_selector(const std::string& textv, LabelSelector* out, std::string* err) {
  out->reqs.clear();
  std::string t = text::trim(textv);
  if (t.empty()) return true;
  for (std::string term : split_terms(t)) {
    term = text::trim(term);
    if (term.empty()) {
      *err = "invalid label selector \"" + textv + "\": empty requirement";
      return false;
    }
    Requirement r;
    size_t p;
    if (term[0] == '!') {
      r.op = Requirement::NotExists;
      r.key = text::trim(term.substr(1));
    } else if ((p = term.find(" notin ")) != std::string::npos || (p = term.find(" in ")) != std::string::npos) {
      bool notin = term.find(" notin ") != std::string::npos;
      r.op = notin ? Requirement::NotIn : Requirement::In;
      r.key = text::trim(term.substr(0, p));
      std::string rest = text::trim(term.substr(p + (notin ? 7 : 4)));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') {
        *err = "invalid label selector \"" + textv + "\": expected a parenthesised value list";
        return false;
      }
      for (auto& v : text::split(rest.substr(1, rest.size() - 2), ',')) r.values.push_back(text::trim(v));
    } else if ((p = term.find("!=")) != std::string::npos) {
      r.op = Requirement::NotEq;
      r.key = text::trim(term.substr(0, p));
      r.values.push_back(text::trim(term.substr(p + 2)));
    } else if ((p = term.find("==")) != std::string::npos) {
      r.op = Requirement::Eq;
      r.key = text::trim(term.substr(0, p));
      r.values.push_back(text::trim(term.substr(p + 2)));
    } else if ((p = term.find('=')) != std::string::npos) {
      r.op = Requirement::Eq;
      r.key = text::trim(term.substr(0, p));
      r.values.push_back(text::trim(term.substr(p + 1)));
    } else {
      r.op = Requirement::Exists;
      r.key = term;
    }
    if (!valid_key(r.key)) {
      *err = "invalid label selector \"" + textv + "\": invalid key \"" + r.key + "\"";
      return false;
    }
    out->reqs.push_back(r);
  }
  return true;
}

bool label_selector_from_json(const json::Value& sel, LabelSelector* out, std::string* err) {
  out->reqs.clear();
  if (sel.is_null()) return true;
  if (!sel.is_object()) {
    *err = "selector must be an object";
    return false;
  }
  for (const auto& m : sel["matchLabels"].members()) { out->reqs.push_back({Requirement::Eq, m.first, {m.second.as_string()}}); }
  for (const auto& e : sel["matchExpressions"].items()) {
    Requirement r;
    r.key = e["key"].str();
    std::string op = e["operator"].str();
    for (const auto& v : e["values"].items()) r.values.push_back(v.as_string());
    if (op == "In") r.op = Requirement::In;
    else if (op == "NotIn") r.op = Requirement::NotIn;
    else if (op == "Exists") r.op = Requirement::Exists;
    else if (op == "DoesNotExist") r.op = Requirement::NotExists;
    else {
      *err = "unknown selector operator \"" + op + "\"";
      return false;
    }
    out->reqs.push_back(r);
  }
  return true;
}

std::string format_label_selector(const json::Value& sel) {
  std::string out;
  for (const auto& m : sel["matchLabels"].members()) {
    if (!out.empty()) out += ",";
    out += m.first + "=" + m.second.as_string();
  }
  for (const auto& e : sel["matchExpressions"].items()) {
    if (!out.empty()) out += ",";
    std::string op = e["operator"].str();
    std::string vals;
    for (const auto& v : e["values"].items()) vals += (vals.empty() ? "" : ",") + v.as_string();
    if (op == "In") out += e["key"].str() + " in (" + vals + ")";
    else if (op == "NotIn") out += e["key"].str() + " notin (" + vals + ")";
    else if (op == "Exists") out += e["key"].str();
    else out += "!" + e["key"].str();
  }
  return out.empty() ? "<none>" : out;
}

static std::string field_value(const json::Value& obj, const std::string& path) {
  const json::Value* cur = &obj;
  for (const auto& part : text::split(path, '.')) {
    cur = cur->find(part);
    if (!cur) return "";
  }
  if (cur->is_string()) return cur->str();
  if (cur->is_bool()) return cur->as_bool() ? "true" : "false";
  if (cur->is_number()) return json::dump(*cur);
  return "";
}

bool FieldSelector::matches(const json::Value& obj) const {
  for (const auto& t : terms) {
    bool eq = field_value(obj, t.path) == t.value;
    if (eq == t.negate) return false;
  }
  return true;
}

bool parse_field_selector(const std::string& textv, FieldSelector* out, std::string* err) {
  out->terms.clear();
  std::string t = text::trim(textv);
  if (t.empty()) return true;
  for (auto term : text::split(t, ',')) {
    term = text::trim(term);
    FieldSelector::Term ft;
    size_t p;
    if ((p = term.find("!=")) != std::string::npos) {
      ft.path = term.substr(0, p);
      ft.value = term.substr(p + 2);
      ft.negate = true;
    } else if ((p = term.find("==")) != std::string::npos) {
      ft.path = term.substr(0, p);
      ft.value = term.substr(p + 2);
      ft.negate = false;
    } else if ((p = term.find('=')) != std::string::npos) {
      ft.path = term.substr(0, p);
      ft.value = term.substr(p + 1);
      ft.negate = false;
    } else {
      *err = "invalid field selector \"" + textv + "\": expected field=value";
      return false;
    }
    ft.path = text::trim(ft.path);
    if (ft.path.empty() || !valid_key(ft.path)) {
      *err = "invalid field selector \"" + textv + "\": bad field \"" + ft.path + "\"";
      return false;
    }
    out->terms.push_back(ft);
  }
  return true;
}

}  // namespace api
}  // namespace k32
