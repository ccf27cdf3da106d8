// Kubernetes strategic merge patch (the semantics of apimachinery's strategicpatch package)
// driven by the generated schema table: lists with patch strategy "merge" merge by their
// merge key (or as sets of primitives), everything else is replaced.
#include "core/openapi/schema.h"
#include "core/patch/patch.h"

namespace k32 {
namespace patch {

namespace {

using json::Value;
using schema::Node;

const char kPatch[] = "$patch";
const char kRetainKeys[] = "$retainKeys";
const std::string kSetOrder = "$setElementOrder/";
const std::string kDeleteFrom = "$deleteFromPrimitiveList/";

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool is_merge_list(const Node* n) { return n && n->type == schema::Type::Array && (n->strategy & schema::kMerge); }

class Merger {
 public:
  std::string err;

  // Merges `patch` into `orig` (which may be null) under schema node `n` (nullptr: unknown).
  // Sets *deleted when a `$patch: delete` removes the value itself.
  bool merge_value(const Value& orig, const Value& patch, const Node* n, Value* out, bool* deleted, int depth) {
    *deleted = false;
    if (depth > json::kMaxDepth) return fail("patch nesting too deep");
    if (patch.is_object()) {
      if (n && n->type != schema::Type::Object && n->type != schema::Type::Map && n->type != schema::Type::Any)
        return fail("a map was given for a field that is not a map");
      return merge_map(orig.is_object() ? orig : empty_object(), patch, n, out, deleted, depth);
    }
    if (patch.is_array()) {
      if (is_merge_list(n)) return merge_list(orig.is_array() ? orig : empty_array(), patch, n, out, depth);
      return strip(patch, n, out, depth);
    }
    *out = patch;
    return true;
  }

 private:
  // Shared empty values instead of temporaries: merge_value and merge_map recurse once per
  // nesting level, and every temporary in their frames repeats 64 times at the limit.
  static const Value& empty_object() {
    static const Value v = Value::object();
    return v;
  }
  static const Value& empty_array() {
    static const Value v = Value::array();
    return v;
  }
  static const Value& null_value() {
    static const Value v;
    return v;
  }

  bool fail(const std::string& m) {
    if (err.empty()) err = m;
    return false;
  }

  // A patch value without any directives, for places where it replaces the original.
  __attribute__((noinline)) bool strip(const Value& patch, const Node* n, Value* out, int depth) {
    bool deleted = false;
    if (patch.is_object()) return merge_value(Value(), patch, n, out, &deleted, depth + 1);
    if (patch.is_array()) {
      Value arr = Value::array();
      const Node* e = n ? schema::elem(n) : nullptr;
      for (const auto& it : patch.items()) {
        if (it.is_object() && it.find(kPatch)) continue;  // directive elements never land in the object
        Value v;
        if (!merge_value(Value(), it, e, &v, &deleted, depth + 1)) return false;
        if (!deleted) arr.push(std::move(v));
      }
      *out = std::move(arr);
      return true;
    }
    *out = patch;
    return true;
  }

  bool merge_map(const Value& orig, const Value& patch, const Node* n, Value* out, bool* deleted, int depth) {
    const Value* directive = patch.find(kPatch);
    if (directive) {
      bool done = false;
      bool ok = map_directive(*directive, patch, n, out, deleted, depth, &done);
      if (done || !ok) return ok;
    }
    Value result = orig;
    for (const auto& m : patch.members()) {
      const std::string& k = m.first;
      if (k == kPatch || k == kRetainKeys || starts_with(k, kSetOrder) || starts_with(k, kDeleteFrom)) continue;
      if (m.second.is_null()) {
        result.erase(k);
        continue;
      }
      const Node* child = n ? (n->type == schema::Type::Map ? schema::elem(n) : schema::field(n, k)) : nullptr;
      if (child == schema::any()) child = nullptr;  // untyped: plain JSON merge rules
      const Value* cur = result.find(k);
      Value merged;
      bool gone = false;
      if (!merge_value(cur ? *cur : null_value(), m.second, child, &merged, &gone, depth + 1)) return false;
      if (gone) result.erase(k);
      else result.set(k, std::move(merged));
    }
    if (!list_directives(orig, patch, n, &result)) return false;
    *out = std::move(result);
    return true;
  }

  // A map's `$patch`: delete and replace finish the map (*done); merge goes on as usual.
  __attribute__((noinline)) bool map_directive(const Value& directive, const Value& patch, const Node* n, Value* out,
                                               bool* deleted, int depth, bool* done) {
    const std::string d = directive.as_string();
    if (d == "delete") {
      *done = true;
      *deleted = true;
      *out = Value();
      return true;
    }
    if (d == "replace") {
      *done = true;
      return replace_map(patch, n, out, deleted, depth);
    }
    if (d != "merge") return fail("unknown $patch directive \"" + d + "\"");
    return true;
  }

  // `$patch: replace`: the map's other keys, without directives, replace the original.
  __attribute__((noinline)) bool replace_map(const Value& patch, const Node* n, Value* out, bool* deleted, int depth) {
    Value rest = Value::object();
    for (const auto& m : patch.members())
      if (m.first != kPatch) rest.set(m.first, m.second);
    return merge_map(empty_object(), rest, n, out, deleted, depth);
  }

  // The directives that act on the merged map's lists and keys, out of line so their locals
  // stay out of the recursive frame.
  __attribute__((noinline)) bool list_directives(const Value& orig, const Value& patch, const Node* n, Value* out) {
    Value& result = *out;
    // $deleteFromPrimitiveList after the merge: it also removes values the patch list adds.
    for (const auto& m : patch.members()) {
      if (!starts_with(m.first, kDeleteFrom)) continue;
      if (!m.second.is_array()) return fail(m.first + " must be a list");
      std::string key = m.first.substr(kDeleteFrom.size());
      Value* list = result.find(key);
      if (!list || !list->is_array()) continue;
      auto& items = list->items();
      for (const auto& del : m.second.items())
        for (size_t i = items.size(); i-- > 0;)
          if (items[i] == del) items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    }
    // $setElementOrder/<list>: order the merged list as the patch author's list is ordered.
    for (const auto& m : patch.members()) {
      if (!starts_with(m.first, kSetOrder)) continue;
      if (!m.second.is_array()) return fail(m.first + " must be a list");
      std::string key = m.first.substr(kSetOrder.size());
      Value* list = result.find(key);
      if (!list || !list->is_array()) continue;
      const Node* child = n ? schema::field(n, key) : nullptr;
      const char* mkey = child && child->merge_key ? child->merge_key : nullptr;
      if (!order_consistent(patch[key], m.second, mkey))
        return fail("the order in the patch list of " + key + " doesn't match its $setElementOrder list");
      // Ordering compares against the live list minus the elements this patch deletes; and
      // apimachinery lets unknown elements go after the server-only ones exactly when the
      // patch list deletes something (observed with `kubectl patch --local`; its merge of
      // the two sequences swaps operands on that path).
      const Value* live_list = orig.find(key);
      Value live = live_list && live_list->is_array() ? *live_list : Value::array();
      bool deletes = false;
      for (const auto& p : patch[key].items()) {
        if (!(p.is_object() && p[kPatch].as_string() == "delete")) continue;
        deletes = true;
        auto& li = live.items();
        for (size_t i = li.size(); i-- > 0;)
          if (mkey && li[i].is_object() && same_key(li[i], p, mkey)) li.erase(li.begin() + static_cast<std::ptrdiff_t>(i));
      }
      normalize_order(list, m.second, live, mkey, deletes);
    }
    const Value* retain = patch.find(kRetainKeys);
    if (retain) {
      if (!retain->is_array()) return fail("$retainKeys must be a list");
      Value kept = Value::object();
      for (const auto& mm : result.members()) {
        bool keep = false;
        for (const auto& r : retain->items())
          if (r.is_string() && r.str() == mm.first) keep = true;
        if (keep) kept.set(mm.first, mm.second);
      }
      result = std::move(kept);
    }
    return true;
  }

  static bool same_key(const Value& a, const Value& b, const char* key) {
    const Value* x = a.find(key);
    const Value* y = b.find(key);
    return x && y && *x == *y;
  }

  // apimachinery refuses a patch list whose elements are missing from, or ordered
  // differently than, its $setElementOrder list ($patch directives aside).
  static bool order_consistent(const Value& patch_list, const Value& order, const char* key) {
    if (!patch_list.is_array()) return true;
    int last = -1;
    for (const auto& p : patch_list.items()) {
      if (p.is_object() && p.find(kPatch)) continue;
      int at = index_in(order, p, key);
      if (at <= last) return false;
      last = at;
    }
    return true;
  }

  static bool matches(const Value& a, const Value& b, const char* key) {
    return key ? (a.is_object() && b.is_object() && same_key(a, b, key)) : a == b;
  }

  static int index_in(const Value& list, const Value& item, const char* key) {
    const auto& items = list.items();
    for (size_t i = 0; i < items.size(); ++i)
      if (matches(items[i], item, key)) return static_cast<int>(i);
    return -1;
  }

  // The element order apimachinery produces: the elements named by `order` (the patch list,
  // or its $setElementOrder) in that order, interleaved with the other ("server-only")
  // elements, which keep their live order. Where both candidates are in `live`, the one
  // that comes first there goes first; otherwise the ordered element goes first, unless
  // server_first_when_unknown.
  static void normalize_order(Value* list, const Value& order, const Value& live, const char* key,
                              bool server_first_when_unknown) {
    auto& items = list->items();
    std::vector<bool> used(items.size(), false);
    std::vector<Value> ordered, server_only;
    for (const auto& o : order.items()) {
      if (o.is_object() && o.find(kPatch)) continue;
      for (size_t i = 0; i < items.size(); ++i) {
        if (!used[i] && matches(items[i], o, key)) {
          ordered.push_back(items[i]);
          used[i] = true;
          break;
        }
      }
    }
    for (size_t i = 0; i < items.size(); ++i)
      if (!used[i]) server_only.push_back(items[i]);
    std::vector<Value> out;
    size_t l = 0, r = 0;
    while (l < server_only.size() || r < ordered.size()) {
      bool take_left = r >= ordered.size();
      if (!take_left && l < server_only.size()) {
        int li = index_in(live, server_only[l], key);
        int ri = index_in(live, ordered[r], key);
        take_left = (li >= 0 && ri >= 0) ? li < ri : server_first_when_unknown;
      }
      out.push_back(take_left ? std::move(server_only[l++]) : std::move(ordered[r++]));
    }
    items = std::move(out);
  }

  bool merge_list(const Value& orig, const Value& patch, const Node* n, Value* out, int depth) {
    const char* key = n->merge_key;
    const Node* e = schema::elem(n);
    // A `{"$patch": "replace"}` element replaces the whole list with the other elements.
    for (const auto& it : patch.items()) {
      if (it.is_object() && it["$patch"].as_string() == "replace") return strip(patch, n, out, depth);
    }
    Value result = orig;
    auto& items = result.items();
    // Deletions first, as apimachinery does: a list may delete an element and add it anew.
    for (const auto& p : patch.items()) {
      const Value* directive = p.is_object() ? p.find(kPatch) : nullptr;
      if (!key || !directive || directive->as_string() != "delete") continue;
      if (!p.find(key)) return fail(std::string("a $patch: delete list element needs its merge key \"") + key + "\"");
      for (size_t i = items.size(); i-- > 0;)
        if (items[i].is_object() && same_key(items[i], p, key)) items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    }
    const Value live = result;  // what ordering compares against: the list minus deletions
    for (const auto& p : patch.items()) {
      if (!key || !p.is_object()) {
        // A set of primitives (or elements without a key): union, keeping the original order.
        if (p.is_object() && p.find(kPatch)) {
          if ((*p.find(kPatch)).as_string() != "delete") return fail("unsupported $patch in a list element");
          continue;
        }
        bool present = false;
        for (const auto& it : items)
          if (it == p) present = true;
        if (!present) {
          Value v;
          if (!strip(p, e, &v, depth + 1)) return false;
          items.push_back(std::move(v));
        }
        continue;
      }
      const Value* kv = p.find(key);
      const Value* directive = p.find(kPatch);
      if (directive && directive->as_string() == "delete") continue;  // done above
      if (!kv) return fail(std::string("a list element has no merge key \"") + key + "\"");
      bool merged_in = false;
      for (auto& it : items) {
        if (!it.is_object() || !same_key(it, p, key)) continue;
        Value merged;
        bool gone = false;
        if (!merge_value(it, p, e, &merged, &gone, depth + 1)) return false;
        it = std::move(merged);
        merged_in = true;
        break;
      }
      if (!merged_in) {
        Value v;
        bool gone = false;
        if (!merge_value(Value(), p, e, &v, &gone, depth + 1)) return false;
        if (!gone) items.push_back(std::move(v));
      }
    }
    normalize_order(&result, patch, live, key, false);
    *out = std::move(result);
    return true;
  }
};

}  // namespace

bool strategic_merge(const std::string& kind_key, const json::Value& doc, const json::Value& patch, json::Value* out,
                     std::string* err) {
  const Node* root = schema::root(kind_key);
  if (!root) {
    if (err) *err = "strategic merge patch is not supported for kind " + kind_key;
    return false;
  }
  if (!patch.is_object()) {
    if (err) *err = "a strategic merge patch must be a JSON object";
    return false;
  }
  Merger m;
  Value result;
  bool deleted = false;
  if (!m.merge_value(doc.is_object() ? doc : Value::object(), patch, root, &result, &deleted, 0)) {
    if (err) *err = m.err;
    return false;
  }
  *out = deleted ? Value::object() : std::move(result);
  return true;
}

}  // namespace patch
}  // namespace k32
