// RFC 6902 JSON Patch and RFC 7386 Merge Patch: cases from the RFCs' appendices.
#include "core/patch/patch.h"
#include "patch_test_util.h"

using k32test::J;
using k32test::same;

namespace {

struct Case {
  const char* name;
  const char* doc;
  const char* ops;
  const char* want;  // nullptr: the patch must fail
};

const Case kJsonPatchCases[] = {
    {"A.1 add object member", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
     R"({"baz":"qux","foo":"bar"})"},
    {"A.2 add array element", R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
     R"({"foo":["bar","qux","baz"]})"},
    {"A.3 remove member", R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
    {"A.4 remove element", R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})"},
    {"A.5 replace", R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
     R"({"baz":"boo","foo":"bar"})"},
    {"A.6 move value", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
     R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
     R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
    {"A.7 move element", R"({"foo":["all","grass","cows","eat"]})", R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
     R"({"foo":["all","cows","eat","grass"]})"},
    {"A.8 test success", R"({"baz":"qux","foo":["a",2,"c"]})",
     R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
     R"({"baz":"qux","foo":["a",2,"c"]})"},
    {"A.9 test failure", R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])", nullptr},
    {"A.10 add nested member", R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
     R"({"foo":"bar","child":{"grandchild":{}}})"},
    {"A.12 add to nonexistent target", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])", nullptr},
    {"A.14 ~ escapes", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
    {"A.15 string not number", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])", nullptr},
    {"A.16 add array value", R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
     R"({"foo":["bar",["abc","def"]]})"},
    {"copy", R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])", R"({"a":{"b":1},"c":{"b":1}})"},
    {"replace root", R"({"a":1})", R"([{"op":"replace","path":"","value":[1]}])", R"([1])"},
    {"move into own child", R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])", nullptr},
    {"leading zero index", R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/01"}])", nullptr},
    {"index past end", R"({"a":[1,2]})", R"([{"op":"add","path":"/a/3","value":0}])", nullptr},
    {"bad escape", R"({"a":1})", R"([{"op":"remove","path":"/~2"}])", nullptr},
    {"unknown op", R"({"a":1})", R"([{"op":"frob","path":"/a"}])", nullptr},
    {"missing value", R"({"a":1})", R"([{"op":"add","path":"/b"}])", nullptr},
    {"not an array", R"({"a":1})", R"({"op":"add","path":"/b","value":1})", nullptr},
    {"remove missing", R"({"a":1})", R"([{"op":"remove","path":"/b"}])", nullptr},
    // kubectl patch --type=json on a pod: change the image of the first container.
    {"kubectl image", R"({"spec":{"containers":[{"name":"web","image":"nginx:1.0"}]}})",
     R"([{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.1"}])",
     R"({"spec":{"containers":[{"name":"web","image":"nginx:1.1"}]}})"},
};

struct MergeCase {
  const char* doc;
  const char* patch;
  const char* want;
};

// RFC 7386 appendix A.
const MergeCase kMergeCases[] = {
    {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
    {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
    {R"({"a":"b"})", R"({"a":null})", R"({})"},
    {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
    {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
    {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
    {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
    {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
    {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
    {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
    {R"({"a":"foo"})", R"(null)", R"(null)"},
    {R"({"a":"foo"})", R"("bar")", R"("bar")"},
    {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
    {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
    {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
};

}  // namespace

// `--filter json|merge`: results of lines on stdin, so tests/apigen can compare with kubectl's
// implementation.
int filter(const std::string& type) {
  return k32test::filter_lines(
      [&](const k32::json::Value& doc, const k32::json::Value& patch, k32::json::Value* out, std::string* err) {
        if (type != "merge") return k32::patch::json_patch(doc, patch, out, err);
        k32::patch::merge_patch(doc, patch, out);
        return true;
      });
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--filter") return filter(argv[2]);
  for (const auto& c : kJsonPatchCases) {
    k32::json::Value out = J(R"("untouched")");
    std::string err;
    bool ok = k32::patch::json_patch(J(c.doc), J(c.ops), &out, &err);
    k32test::check_case(c.name, ok, err, out, c.want);
  }
  for (const auto& c : kMergeCases) {
    k32::json::Value out;
    k32::patch::merge_patch(J(c.doc), J(c.patch), &out);
    CHECK(same(c.patch, out, J(c.want)));
  }
  TEST_MAIN_END();
}
