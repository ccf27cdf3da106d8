// JSON model: parsing rules, errors with offsets, round trips, and a mutation fuzz loop.
#include <cstring>
#include <string>
#include <utility>

#include "check.h"
#include "core/json/json.h"

using k32::json::Value;

static bool parses(const std::string& s) {
  Value v;
  k32::json::ParseError e;
  return k32::json::parse(s, &v, &e);
}

// A value holds only its own kind (a tag and a union): at most a std::string and a word,
// 28 bytes on a 32-bit board (68 when every kind sat side by side).
static void test_compact_value() {
  CHECK(sizeof(Value) <= sizeof(std::string) + sizeof(void*));
  // Copies, moves and self-assignment keep values whole; a child assigned over its parent
  // is read before the parent lets go of it.
  Value v;
  k32::json::ParseError e;
  CHECK(k32::json::parse(R"({"a":{"b":[1,"two",{"c":null}]},"s":"a string longer than fifteen bytes"})", &v, &e));
  Value copy = v;
  CHECK(copy == v);
  Value moved = std::move(copy);
  CHECK(moved == v);
  moved = moved;
  CHECK(moved == v);
  moved = moved["a"];
  CHECK_EQ(k32::json::dump(moved), std::string(R"({"b":[1,"two",{"c":null}]})"));
  moved = std::move(moved["b"]);
  CHECK_EQ(k32::json::dump(moved), std::string(R"([1,"two",{"c":null}])"));
  // Lists of a value of another kind are empty, and what is added to them is not kept.
  Value s("text");
  s.members().push_back({"k", Value(1)});
  s.items().push_back(Value(2));
  CHECK(s.members().empty() && s.items().empty());
  CHECK_EQ(k32::json::dump(s), std::string("\"text\""));
  Value n;
  n.items().push_back(Value(1));
  CHECK(n.is_null() && n.size() == 0u);
}

// The node's clients leave managedFields out of what they parse, at every level.
static void test_parse_dropping() {
  Value v;
  k32::json::ParseError e;
  CHECK(k32::json::parse_dropping(
      R"({"items":[{"metadata":{"name":"a","managedFields":[{"manager":"m"}]},"spec":{}}],"managedFields":1})", "managedFields",
      &v, &e));
  CHECK_EQ(k32::json::dump(v), std::string(R"({"items":[{"metadata":{"name":"a"},"spec":{}}]})"));
  // Errors inside a dropped member still fail the parse.
  CHECK(!k32::json::parse_dropping(R"({"managedFields":[1,}]})", "managedFields", &v, &e));
  // Several names (the heartbeat's view of its Node: only status.conditions kept).
  static const char* const kNotRead[] = {"metadata", "images", nullptr};
  CHECK(k32::json::parse_dropping_any(
      R"({"metadata":{"name":"w"},"status":{"images":[{"names":["x"]}],"conditions":[{"type":"Ready","status":"True"}]}})",
      kNotRead, &v, &e));
  CHECK_EQ(k32::json::dump(v), std::string(R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"));
  CHECK(!k32::json::parse_dropping_any(R"({"images":[1,}]})", kNotRead, &v, &e));
}

int main() {
  test_compact_value();
  test_parse_dropping();
  Value v;
  k32::json::ParseError e;
  CHECK(k32::json::parse(R"({"a":1,"b":[true,null,"x\u00e9\ud83d\ude00"],"c":{"d":-2.5e3}})", &v, &e));
  CHECK_EQ(v["a"].as_int(), 1);
  CHECK(v["b"].items()[0].as_bool());
  CHECK(v["b"].items()[1].is_null());
  CHECK_EQ(v["b"].items()[2].str(), std::string("x\xc3\xa9\xf0\x9f\x98\x80"));
  CHECK_EQ(v["c"]["d"].as_double(), -2500.0);
  // Insertion order is kept and output is compact.
  CHECK_EQ(k32::json::dump(v),
           std::string(R"({"a":1,"b":[true,null,"x)") + "\xc3\xa9\xf0\x9f\x98\x80" + R"("],"c":{"d":-2500}})");
  // Control characters are written as \u escapes; integers in decimal, both ends of int64.
  CHECK_EQ(k32::json::dump(Value("\x01\x1f\x7f")), std::string("\"\\u0001\\u001f\x7f\""));
  CHECK_EQ(k32::json::dump(Value(static_cast<int64_t>(0))), std::string("0"));
  CHECK_EQ(k32::json::dump(Value(static_cast<int64_t>(-7))), std::string("-7"));
  CHECK_EQ(k32::json::dump(Value(INT64_MAX)), std::string("9223372036854775807"));
  CHECK_EQ(k32::json::dump(Value(INT64_MIN)), std::string("-9223372036854775808"));
  // Round trip of escapes.
  Value s("line\n\"quote\"\t\x01");
  Value back;
  CHECK(k32::json::parse(k32::json::dump(s), &back, &e));
  CHECK(back == s);
  // Errors name the offset.
  CHECK(!k32::json::parse("{\"a\":}", &v, &e));
  CHECK_EQ(e.offset, 5u);
  CHECK(e.message.find("offset 5") != std::string::npos);
  // An object or array cut short or badly separated says which one and what it expected.
  const std::pair<const char*, const char*> container_errors[] = {{"{\"a\":1", "unexpected end of input in object"},
                                                                  {"[1", "unexpected end of input in array"},
                                                                  {"{\"a\":1]", "expected ',' or '}'"},
                                                                  {"[1}", "expected ',' or ']'"},
                                                                  {"[ ]", ""},
                                                                  {"{ }", ""}};
  for (const auto& c : container_errors) {
    e = k32::json::ParseError();
    CHECK_EQ(k32::json::parse(c.first, &v, &e), *c.second == '\0');
    CHECK(e.message.find(c.second) == 0);
  }
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "01", "1.", "tru", "\"\\x\"", "\"\xff\"", "\"\\ud800\"", "[1] 2",
                          "{\"a\":1,}", "\"a\nb\""}) {
    CHECK(!parses(bad));
  }
  // Nesting deeper than the limit is refused instead of exhausting the stack.
  CHECK(!parses(std::string(100000, '[')));
  CHECK(parses(std::string(60, '[') + std::string(60, ']')));
  // Large integers stay exact; overflow becomes a double.
  CHECK(k32::json::parse("9007199254740993", &v, &e) && v.as_int() == 9007199254740993LL);
  CHECK(k32::json::parse("123456789012345678901234567890", &v, &e) && v.is_number() && !v.is_int());
  // Numbers past a double's range are refused (Go does too); read as infinity they would be
  // written back as null. -0 is written as 0, so that writing what was read is stable.
  CHECK(!k32::json::parse("1e400", &v, &e) && e.message.find("out of range") != std::string::npos);
  CHECK(!k32::json::parse("[-1.8e308]", &v, &e));
  CHECK(k32::json::parse("1e-400", &v, &e) && v.as_double() == 0);
  CHECK(k32::json::parse("-0.0", &v, &e) && k32::json::dump(v) == "0");
  // Object helpers.
  Value o = Value::object();
  o.set("x", 1);
  o.set("x", 2);
  CHECK_EQ(o.size(), 1u);
  CHECK(o.erase("x") && o.size() == 0);
  // Mutation fuzz: every prefix and byte flip of a document parses or fails cleanly.
  const std::string doc = R"({"kind":"Pod","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"n":[1,2.5,-3e2,"\u0041"]}})";
  uint32_t seed = 12345;
  for (int i = 0; i < 20000; ++i) {
    std::string m = doc;
    seed = seed * 1103515245u + 12345u;
    size_t pos = (seed >> 8) % m.size();
    m[pos] = static_cast<char>(seed >> 24);
    if (i % 3 == 0) m.resize(pos);
    Value out;
    k32::json::ParseError pe;
    if (k32::json::parse(m, &out, &pe)) {
      Value again;
      CHECK(k32::json::parse(k32::json::dump(out), &again, &pe));
      CHECK(again == out);
    }
  }
  {
    // depth() and the parser's limit agree: parse(dump(v), d) succeeds exactly when depth(v) <= d.
    CHECK_EQ(k32::json::depth(Value(1)), 0);
    CHECK_EQ(k32::json::depth(Value::object()), 0);
    Value v("leaf");
    for (int levels = 1; levels <= 8; ++levels) {
      Value o = levels % 2 ? Value::object() : Value::array();
      if (o.is_object()) o.set("k", v);
      else o.push(v);
      v = o;
      CHECK_EQ(k32::json::depth(v), levels);
      std::string text = k32::json::dump(v);
      Value back;
      k32::json::ParseError pe;
      CHECK(k32::json::parse(text, &back, &pe, levels));
      CHECK(!k32::json::parse(text, &back, &pe, levels - 1));
      CHECK(pe.too_deep);
    }
  }
  TEST_MAIN_END();
}
