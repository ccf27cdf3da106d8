// The streaming JSON writer gives exactly json::dump's bytes for the same values (the host
// tools parse STATUS as before), and hands them to its sink in pieces no larger than its
// buffer, however long the document: the answer's memory is that buffer.
#include <string>

#include "check.h"
#include "core/console/console.h"
#include "core/json/json.h"
#include "core/json/json_writer.h"

using namespace k32;

namespace {

class Collect : public json::ByteSink {
 public:
  bool write(const char* data, size_t len) override {
    if (len > largest) largest = len;
    ++pieces;
    if (fail_after >= 0 && pieces > fail_after) return false;
    out.append(data, len);
    return true;
  }
  std::string out;
  size_t largest = 0;
  int pieces = 0;
  int fail_after = -1;
};

// The same document through both paths: a json::Value tree, and the writer.
void both(json::Writer& w, json::Value* v, int rows, const std::string& text) {
  w.begin_object();
  w.member("name", text);
  v->set("name", text);
  w.member("neg", static_cast<int64_t>(-9223372036854775807LL - 1));
  v->set("neg", static_cast<int64_t>(-9223372036854775807LL - 1));
  w.member("zero", static_cast<int64_t>(0));
  v->set("zero", static_cast<int64_t>(0));
  w.member("yes", true);
  v->set("yes", true);
  w.member("no", false);
  v->set("no", false);
  w.key("empty");
  w.begin_array();
  w.end_array();
  v->set("empty", json::Value::array());
  w.key("none");
  w.begin_object();
  w.end_object();
  v->set("none", json::Value::object());
  w.key("rows");
  w.begin_array();
  json::Value arr = json::Value::array();
  for (int i = 0; i < rows; ++i) {
    w.begin_object();
    json::Value r = json::Value::object();
    w.member("i", static_cast<int64_t>(i));
    r.set("i", static_cast<int64_t>(i));
    w.member("s", "x\"\\\n\r\t\b\f\x01\x1f\xc3\xa9");
    r.set("s", "x\"\\\n\r\t\b\f\x01\x1f\xc3\xa9");
    w.key("nested");
    w.begin_array();
    w.value(static_cast<int64_t>(i * 1000));
    w.value("a");
    w.end_array();
    json::Value nested = json::Value::array();
    nested.push(static_cast<int64_t>(i * 1000));
    nested.push("a");
    r.set("nested", nested);
    w.end_object();
    arr.push(r);
  }
  w.end_array();
  v->set("rows", arr);
  w.end_object();
}

}  // namespace

int main() {
  // Small and long documents, a string longer than the buffer among them.
  for (int rows : {0, 1, 3, 200}) {
    const std::string text = rows == 200 ? std::string(3 * K32_CONSOLE_ANSWER_CHUNK + 7, 'q') : std::string("node-1");
    Collect sink;
    json::Value v;
    {
      json::Writer w(&sink);
      both(w, &v, rows, text);
      CHECK(w.flush());
    }
    CHECK_EQ(sink.out, json::dump(v));
    CHECK(sink.largest <= K32_CONSOLE_ANSWER_CHUNK);
    if (rows == 200) CHECK(sink.pieces > 10);
  }

  // A sink that stops taking bytes: the writer stops handing them on and says so.
  {
    Collect sink;
    sink.fail_after = 1;
    json::Value v;
    json::Writer w(&sink);
    both(w, &v, 200, "n");
    CHECK(!w.flush());
    CHECK(!w.ok());
    CHECK_EQ(sink.pieces, 2);
  }

  // The console's streamed commands: the same answer line a Reply would give, in pieces.
  {
    console::Dispatcher d;
    d.add_streamed("STATUS", [](const json::Value&, json::Writer& out) {
      out.begin_object();
      out.member("name", "w1");
      out.key("stacks");
      out.begin_array();
      for (int i = 0; i < 100; ++i) {
        out.begin_object();
        out.member("peak", static_cast<int64_t>(i));
        out.end_object();
      }
      out.end_array();
      out.end_object();
    });
    json::Value want = json::Value::object();
    want.set("name", "w1");
    json::Value stacks = json::Value::array();
    for (int i = 0; i < 100; ++i) {
      json::Value r = json::Value::object();
      r.set("peak", static_cast<int64_t>(i));
      stacks.push(r);
    }
    want.set("stacks", stacks);
    CHECK_EQ(d.handle_line("K32_CMD:STATUS\r\n"), "K32_RESP:STATUS OK " + json::dump(want));
    Collect sink;
    CHECK(d.answer("K32_CMD:STATUS", &sink));
    CHECK_EQ(sink.out, "K32_RESP:STATUS OK " + json::dump(want));
    CHECK(sink.pieces > 1);
    CHECK(sink.largest <= K32_CONSOLE_ANSWER_CHUNK);
    // An argument that is not an object is refused before the command runs.
    CHECK(d.handle_line("K32_CMD:STATUS [1]").find("K32_RESP:STATUS ERR argument must be a JSON object") == 0);
    // Not a command: nothing written.
    Collect none;
    CHECK(!d.answer("boot noise", &none));
    CHECK(none.out.empty());
  }
  TEST_MAIN_END();
}
