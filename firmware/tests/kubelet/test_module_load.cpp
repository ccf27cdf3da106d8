// The compiled modules the kubelet's admission counts, as the scheduler counts them: each
// image's once, the cached ones at their real heap, the others at their estimate, which
// covers every shipped image; the module cache tells when a module joins or leaves it; and
// a pod whose module would not fit is refused with the module named.
#include <cstdio>
#include <string>

#include "check.h"
#include "core/json/json.h"
#include "core/kubelet/admission.h"
#include "core/kubelet/embedded_images.h"
#include "core/kubelet/image_source.h"
#include "core/kubelet/module_cache.h"
#include "core/kubelet/module_load.h"
#include "core/kubelet/pod_instance.h"
#include "test_fixture.h"

using namespace k32;
using k32test::parse_json;
using namespace k32::kubelet;

static int g_changes = 0;
static void count_change(void* ctx) { ++*static_cast<int*>(ctx); }

static json::Value pod_of(const char* image) {
  return parse_json(std::string(R"({"spec":{"containers":[{"name":"a","image":")") + image + R"("},{"name":"b","image":")" +
                    image + R"("}]}})");
}

static int64_t compiled(const char* image) {
  uint64_t b = 0;
  CHECK(image_module_bytes(image, &b) && b > 0);
  return static_cast<int64_t>(b);
}

// The estimate of a module not compiled yet is no less than any shipped image's module.
static void test_estimate_covers_shipped_images() {
  size_t n = 0;
  const EmbeddedImage* imgs = embedded_images(&n);
  CHECK(n >= 3);
  for (size_t i = 0; i < n; ++i) {
    const int64_t real = compiled(("wasm://embedded/" + std::string(imgs[i].name)).c_str());
    const int64_t est = module_heap_from_wasm(imgs[i].size);
    std::printf("%-14s wasm %6u B  module %6lld B  estimate %6lld B\n", imgs[i].name, static_cast<unsigned>(imgs[i].size),
                static_cast<long long>(real), static_cast<long long>(est));
    CHECK(est >= real);
  }
  CHECK_EQ(module_heap_from_wasm(0), 0);
  CHECK(module_heap_from_wasm(INT64_MAX) > 0);  // capped, not wrapped
  // Not on the node: no module to count.
  CHECK_EQ(module_estimate("wasm://embedded/no-such-image", ""), 0);
  CHECK_EQ(module_estimate("wasm://sd/echo", ""), 0);
}

static void test_changes_signalled() {
  set_modules_changed(&count_change, &g_changes);
  ImageRef ref;
  ImageBytes img;
  std::string err, reason, message;
  CHECK(parse_image_ref("wasm://embedded/echo", &ref, &err) && load_image(ref, "", &img, &reason, &message));
  const std::string id = "wasm://embedded/echo@sha256:" + img.sha256;
  wasm::Error werr{};
  const int before = g_changes;
  wasm::Module* a = module_acquire(id, img.data, img.len, wasm::default_allocator(), &werr);
  CHECK(a && g_changes == before + 1);  // joined
  wasm::Module* b = module_acquire(id, img.data, img.len, wasm::default_allocator(), &werr);
  CHECK(b == a && g_changes == before + 1);  // shared: no change
  module_release(b);
  CHECK_EQ(g_changes, before + 1);
  module_release(a);
  CHECK_EQ(g_changes, before + 2);  // left with its last holder
  set_modules_changed(nullptr, nullptr);
}

static void test_module_load_counts_each_image_once() {
  const int64_t echo = compiled("wasm://embedded/echo"), printenv = compiled("wasm://embedded/printenv");
  // Nothing cached: a pod of two echo containers brings one echo module.
  CHECK_EQ(modules_cached(), 0u);
  ModuleLoad m = module_load(pod_of("wasm://embedded/echo"), {}, "");
  CHECK(m.held == 0 && m.added == echo);
  CHECK(m.named.find("wasm://embedded/echo: ") == 0);

  ImageRef ref;
  ImageBytes img;
  std::string err, reason, message;
  CHECK(parse_image_ref("wasm://embedded/echo", &ref, &err) && load_image(ref, "", &img, &reason, &message));
  wasm::Error werr{};
  wasm::Module* mod =
      module_acquire("wasm://embedded/echo@sha256:" + img.sha256, img.data, img.len, wasm::default_allocator(), &werr);
  CHECK(mod != nullptr);
  const int64_t cached = static_cast<int64_t>(module_heap_bytes(mod));
  // Cached (pinned or not, it is one image): held at its real heap, nothing added.
  m = module_load(pod_of(("kube32.io/embedded/echo@sha256:" + img.sha256).c_str()), {{"wasm://embedded/echo"}}, "");
  CHECK(m.held == cached && m.added == 0 && m.named.empty());
  // A pod admitted here whose module is not compiled yet is counted at its estimate, once.
  m = module_load(pod_of("wasm://embedded/echo"), {{"wasm://embedded/printenv"}, {"wasm://embedded/printenv"}}, "");
  CHECK(m.held == cached + printenv && m.added == 0);
  m = module_load(pod_of("wasm://embedded/printenv"), {{"wasm://embedded/echo"}}, "");
  CHECK(m.held == cached && m.added == printenv);
  module_release(mod);
  CHECK_EQ(modules_cached(), 0u);
  (void)echo;
}

static void test_admission_charges_modules() {
  NodeBudget small;
  small.memory = 96 * 1024;
  small.pods = 4;
  small.overhead = 20 * 1024;
  json::Value p = parse_json(R"({"spec":{"containers":[{"name":"a","resources":{"limits":{"memory":"64Ki"}}}]}})");
  // 84Ki and 4Ki of modules held fit in 96Ki; 10Ki more of the pod's new module does not.
  ModuleLoad m;
  m.held = 4 * 1024;
  AdmitResult r = admit_pod(p, small, 0, 0, m);
  CHECK(r.admitted && r.charge == 84 * 1024);  // the pod's own charge: modules are counted apart
  m.added = 10 * 1024;
  m.named = "wasm://sd/x: 10 KiB";
  r = admit_pod(p, small, 0, 0, m);
  CHECK(!r.admitted && r.reason == "OutOfmemory");
  CHECK_EQ(r.message, std::string("Pod was rejected: Node didn't have enough resource: memory, requested: 96256, used: 4096, "
                                  "capacity: 98304 (with the compiled module of wasm://sd/x: 10 KiB)"));
  // Sizes near int64_t's end saturate rather than wrap into a fit.
  m.held = INT64_MAX;
  m.added = INT64_MAX;
  r = admit_pod(p, small, 1024, 0, m);
  CHECK(!r.admitted);
}

int main() {
  test_estimate_covers_shipped_images();
  test_changes_signalled();
  test_module_load_counts_each_image_once();
  test_admission_charges_modules();
  TEST_MAIN_END();
}
