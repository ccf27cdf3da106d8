#include "core/yaml/yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/util/text.h"

namespace k32 {
namespace yaml {

namespace {

struct Line {
  int indent;
  std::string text;  // without indentation and comments
  int number;        // 1-based, for errors
  std::string raw;   // for block scalars: the line without the comment stripping
};

constexpr int kMaxDepth = json::kMaxDepth;

class Parser {
 public:
  Parser(std::vector<Line> lines, std::string* err) : lines_(std::move(lines)), err_(err) {}

  bool parse(json::Value* out) {
    if (lines_.empty()) {
      *out = json::Value();
      return true;
    }
    if (!block(lines_[0].indent, out, 0)) return false;
    if (pos_ < lines_.size()) return fail(lines_[pos_].number, "unexpected indentation");
    return true;
  }

 private:
  std::vector<Line> lines_;
  size_t pos_ = 0;
  std::string* err_;

  bool fail(int line, const std::string& what) {
    *err_ = "line " + text::to_string(line) + ": " + what;
    return false;
  }

  static bool is_seq_item(const std::string& t) { return t == "-" || text::starts_with(t, "- "); }

  // Position of the ':' that ends a mapping key, or npos.
  static size_t key_colon(const std::string& t) {
    if (t.empty()) return std::string::npos;
    if (t[0] == '"' || t[0] == '\'') {
      char q = t[0];
      size_t i = 1;
      while (i < t.size()) {
        if (q == '"' && t[i] == '\\') {
          i += 2;
          continue;
        }
        if (t[i] == q) {
          if (q == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      size_t c = i + 1;
      if (c < t.size() && t[c] == ':' && (c + 1 == t.size() || t[c + 1] == ' ')) return c;
      return std::string::npos;
    }
    if (t[0] == '[' || t[0] == '{') return std::string::npos;
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) return i;
    return std::string::npos;
  }

  bool block(int indent, json::Value* out, int depth) {
    if (depth > kMaxDepth) return fail(lines_[pos_].number, "nesting too deep");
    const Line& first = lines_[pos_];
    if (is_seq_item(first.text)) return sequence(indent, out, depth);
    if (key_colon(first.text) != std::string::npos) return mapping(indent, out, depth);
    // A lone scalar (possibly a flow collection) is the whole block.
    ++pos_;
    if (pos_ < lines_.size() && lines_[pos_].indent > indent)
      return fail(lines_[pos_].number, "multi-line plain scalars are not supported; quote the value");
    return scalar_or_flow(first.text, first.number, out);
  }

  bool mapping(int indent, json::Value* out, int depth) {
    *out = json::Value::object();
    while (pos_ < lines_.size() && lines_[pos_].indent == indent && !is_seq_item(lines_[pos_].text)) {
      const Line& l = lines_[pos_];
      size_t c = key_colon(l.text);
      if (c == std::string::npos) return fail(l.number, "expected \"key: value\"");
      json::Value key;
      if (!scalar_or_flow(text::trim(l.text.substr(0, c)), l.number, &key)) return false;
      std::string k = key.is_string() ? key.str() : json::dump(key);
      if (out->find(k)) return fail(l.number, "duplicate key \"" + k + "\"");
      std::string rest = text::trim(l.text.substr(c + 1));
      ++pos_;
      json::Value v;
      if (!value_after(rest, indent, l.number, &v, depth, true)) return false;
      out->set(k, std::move(v));
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) return fail(lines_[pos_].number, "unexpected indentation");
    return true;
  }

  bool sequence(int indent, json::Value* out, int depth) {
    *out = json::Value::array();
    while (pos_ < lines_.size() && lines_[pos_].indent == indent && is_seq_item(lines_[pos_].text)) {
      Line& l = lines_[pos_];
      std::string rest = l.text == "-" ? "" : text::trim(l.text.substr(2));
      json::Value v;
      if (!rest.empty() && (key_colon(rest) != std::string::npos || is_seq_item(rest))) {
        // "- key: v": the item is a block that starts on this line, two columns in.
        int inner = indent + static_cast<int>(l.text.size() - rest.size());
        l.indent = inner;
        l.text = rest;
        if (!block(inner, &v, depth + 1)) return false;
      } else {
        ++pos_;
        if (!value_after(rest, indent, l.number, &v, depth, false)) return false;
      }
      out->push(std::move(v));
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) return fail(lines_[pos_].number, "unexpected indentation");
    return true;
  }

  // The value of "key:" or "-": inline text, a block scalar, or a nested block.
  bool value_after(const std::string& rest, int indent, int number, json::Value* v, int depth, bool in_mapping) {
    if (rest == "|" || rest == "|-" || rest == "|+" || rest == ">" || rest == ">-" || rest == ">+")
      return block_scalar(rest, indent, v);
    if (!rest.empty()) return scalar_or_flow(rest, number, v);
    if (pos_ >= lines_.size()) {
      *v = json::Value();
      return true;
    }
    const Line& next = lines_[pos_];
    // YAML lets a mapping's sequence value sit at the key's own indentation.
    if (next.indent > indent || (in_mapping && next.indent == indent && is_seq_item(next.text)))
      return block(next.indent, v, depth + 1);
    *v = json::Value();
    return true;
  }

  bool block_scalar(const std::string& style, int indent, json::Value* v) {
    bool folded = style[0] == '>';
    char chomp = style.size() > 1 ? style[1] : ' ';
    std::vector<std::string> parts;
    int body_indent = -1;
    while (pos_ < lines_.size()) {
      const Line& l = lines_[pos_];
      if (!l.raw.empty() && l.indent <= indent) break;
      if (body_indent < 0 && !l.raw.empty()) body_indent = l.indent;
      // The first line sets the block's indentation; a later one left of it is not part of
      // the block and not valid after it either.
      if (!l.raw.empty() && l.indent < body_indent) return fail(l.number, "block scalar line indented less than its first line");
      if (l.raw.empty()) parts.push_back("");
      else parts.push_back(std::string(static_cast<size_t>(l.indent - body_indent), ' ') + l.raw);
      ++pos_;
    }
    while (!parts.empty() && parts.back().empty() && chomp != '+') parts.pop_back();
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) s += (folded && !parts[i].empty() && !parts[i - 1].empty() && parts[i][0] != ' ') ? " " : "\n";
      s += parts[i];
    }
    if (chomp != '-' && !parts.empty()) s += "\n";
    *v = json::Value(s);
    return true;
  }

  bool scalar_or_flow(const std::string& t, int number, json::Value* v) {
    size_t i = 0;
    if (!flow(t, &i, number, v, 0)) return false;
    while (i < t.size() && t[i] == ' ') ++i;
    if (i != t.size()) return fail(number, "unexpected text after a value: \"" + t.substr(i) + "\"");
    return true;
  }

  bool flow(const std::string& t, size_t* i, int number, json::Value* v, int depth) {
    if (depth > kMaxDepth) return fail(number, "nesting too deep");
    while (*i < t.size() && t[*i] == ' ') ++*i;
    if (*i >= t.size()) {
      *v = json::Value();
      return true;
    }
    char c = t[*i];
    if (c == '&' || c == '*' || c == '!') return fail(number, "YAML anchors, aliases and tags are not supported");
    if (c == '[' || c == '{') {
      bool is_seq = c == '[';
      char close = is_seq ? ']' : '}';
      *v = is_seq ? json::Value::array() : json::Value::object();
      ++*i;
      for (;;) {
        while (*i < t.size() && t[*i] == ' ') ++*i;
        if (*i >= t.size()) return fail(number, std::string("unterminated flow collection (missing '") + close + "')");
        if (t[*i] == close) {
          ++*i;
          return true;
        }
        json::Value item;
        if (!flow_scalar_or_nested(t, i, number, &item, depth, is_seq ? ",]" : ":,}")) return false;
        if (is_seq) {
          v->push(std::move(item));
        } else {
          while (*i < t.size() && t[*i] == ' ') ++*i;
          if (*i >= t.size() || t[*i] != ':') return fail(number, "expected ':' in a flow mapping");
          ++*i;
          json::Value val;
          if (!flow_scalar_or_nested(t, i, number, &val, depth, ",}")) return false;
          v->set(item.is_string() ? item.str() : json::dump(item), std::move(val));
        }
        while (*i < t.size() && t[*i] == ' ') ++*i;
        if (*i < t.size() && t[*i] == ',') ++*i;
        else if (*i < t.size() && t[*i] == close) continue;
        else if (*i >= t.size()) continue;
        else return fail(number, "expected ',' in a flow collection");
      }
    }
    return flow_scalar_or_nested(t, i, number, v, depth, "");
  }

  bool flow_scalar_or_nested(const std::string& t, size_t* i, int number, json::Value* v, int depth, const char* stops) {
    while (*i < t.size() && t[*i] == ' ') ++*i;
    if (*i < t.size() && (t[*i] == '[' || t[*i] == '{')) return flow(t, i, number, v, depth + 1);
    if (*i < t.size() && t[*i] == '"') {
      size_t j = *i + 1;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      if (j >= t.size()) return fail(number, "unterminated double-quoted string");
      json::ParseError pe;
      if (!json::parse(t.substr(*i, j + 1 - *i), v, &pe)) return fail(number, "invalid escape in a double-quoted string");
      *i = j + 1;
      return true;
    }
    if (*i < t.size() && t[*i] == '\'') {
      std::string s;
      size_t j = *i + 1;
      for (;;) {
        if (j >= t.size()) return fail(number, "unterminated single-quoted string");
        if (t[j] == '\'') {
          if (j + 1 < t.size() && t[j + 1] == '\'') {
            s.push_back('\'');
            j += 2;
            continue;
          }
          break;
        }
        s.push_back(t[j++]);
      }
      *v = json::Value(s);
      *i = j + 1;
      return true;
    }
    size_t j = *i;
    while (j < t.size()) {
      if (stops[0] && std::string(stops).find(t[j]) != std::string::npos && (t[j] != ':' || j + 1 == t.size() || t[j + 1] == ' '))
        break;
      ++j;
    }
    std::string word = text::trim(t.substr(*i, j - *i));
    *i = j;
    *v = plain(word);
    // A float past the range of a double (1e400) has no JSON form (Go refuses it too).
    if (v->type() == json::Type::Double && !std::isfinite(v->as_double())) return fail(number, "number out of range: " + word);
    return true;
  }

  static json::Value plain(const std::string& w) {
    if (w.empty() || w == "~" || w == "null" || w == "Null" || w == "NULL") return json::Value();
    if (w == "true" || w == "True" || w == "TRUE") return json::Value(true);
    if (w == "false" || w == "False" || w == "FALSE") return json::Value(false);
    bool digits = true, number = true;
    size_t start = (w[0] == '-' || w[0] == '+') ? 1 : 0;
    if (start == w.size()) number = false;
    int dots = 0, exps = 0;
    for (size_t k = start; k < w.size(); ++k) {
      char c = w[k];
      if (c >= '0' && c <= '9') continue;
      digits = false;
      if (c == '.') ++dots;
      else if ((c == 'e' || c == 'E') && k > start) ++exps;
      else if ((c == '-' || c == '+') && k > 0 && (w[k - 1] == 'e' || w[k - 1] == 'E')) {
      } else number = false;
    }
    if (number && digits) {
      errno = 0;
      long long n = std::strtoll(w.c_str(), nullptr, 10);
      if (errno == 0) return json::Value(static_cast<int64_t>(n));
    }
    if (number && dots <= 1 && exps <= 1 && !digits) {
      char* end = nullptr;
      double d = std::strtod(w.c_str(), &end);
      if (end && *end == '\0') return json::Value(d);
    }
    return json::Value(w);
  }
};

// Strips a comment: '#' at the start or after a space, outside quotes.
std::string strip_comment(const std::string& s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      if (i == 0 || s[i - 1] == ' ' || s[i - 1] == '[' || s[i - 1] == '{' || s[i - 1] == ',' || s[i - 1] == ':' ||
          s[i - 1] == '-')
        quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ')) {
      return s.substr(0, i);
    }
  }
  return s;
}

}  // namespace

bool to_json(const std::string& input, json::Value* out, std::string* err) {
  std::vector<Line> lines;
  int number = 0;
  bool started = false;
  for (std::string raw : text::split(input, '\n')) {
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    // YAML text is Unicode; raw bytes would reach the store as JSON it cannot read back.
    if (!text::valid_utf8(raw)) {
      *err = "line " + text::to_string(number) + ": not valid UTF-8";
      return false;
    }
    if (raw == "---" || text::starts_with(raw, "--- ")) {
      if (started) {
        *err = "line " + text::to_string(number) + ": a request body holds one object; found a second YAML document";
        return false;
      }
      continue;
    }
    if (raw == "...") break;
    int indent = 0;
    while (indent < static_cast<int>(raw.size()) && raw[static_cast<size_t>(indent)] == ' ') ++indent;
    if (indent < static_cast<int>(raw.size()) && raw[static_cast<size_t>(indent)] == '\t') {
      *err = "line " + text::to_string(number) + ": tabs cannot indent YAML";
      return false;
    }
    std::string body = raw.substr(static_cast<size_t>(indent));
    std::string t = text::trim(strip_comment(body));
    if (t.empty()) {
      // Blank lines matter inside block scalars only.
      lines.push_back(Line{indent, "", number, ""});
      continue;
    }
    if (text::starts_with(t, "%")) continue;  // directives
    started = true;
    lines.push_back(Line{indent, t, number, body});
  }
  // Blank lines are kept only between non-blank ones (for block scalars); drop the rest
  // where a structure parser would trip on them.
  std::vector<Line> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].text.empty()) {
      kept.push_back(lines[i]);
      continue;
    }
    if (!kept.empty() && i + 1 < lines.size()) kept.push_back(lines[i]);
  }
  while (!kept.empty() && kept.back().text.empty()) kept.pop_back();
  // A blank line is only meaningful right after a block-scalar header or inside one; the
  // structure parser skips the rest.
  std::vector<Line> final_lines;
  bool in_block = false;
  int block_indent = 0;
  for (auto& l : kept) {
    if (l.text.empty()) {
      if (in_block) final_lines.push_back(l);
      continue;
    }
    if (in_block && l.indent <= block_indent) in_block = false;
    final_lines.push_back(l);
    const std::string& t = l.text;
    size_t n = t.size();
    if (n >= 1 && (t.back() == '|' || t.back() == '>' ||
                   (n >= 2 && (t[n - 1] == '-' || t[n - 1] == '+') && (t[n - 2] == '|' || t[n - 2] == '>')))) {
      in_block = true;
      block_indent = l.indent;
    }
  }
  Parser p(std::move(final_lines), err);
  return p.parse(out);
}

}  // namespace yaml
}  // namespace k32
