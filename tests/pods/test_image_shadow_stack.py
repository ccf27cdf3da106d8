"""The shipped images' shadow stack (boards/common.yaml, image_stacks): each image's deepest
call path, read from its code, fits the stack it is linked with, the stack sits below the
image's data, and a frame past it traps as out of bounds instead of writing over the data."""

import shutil

import pytest
import wasmtime

from k32.boards import load_image_stacks
from k32.images.build import build_all, compile_image
from k32.images.shadow_stack import ShadowStackError, layout

pytestmark = pytest.mark.skipif(not shutil.which("wasm2wat"), reason="wasm2wat (wabt) not installed")

# Recursion with a frame of about 100 bytes: far past 1 KiB of stack, and the data it must not
# reach (`marker`) right above the stack.
DEEP = r"""
#include "k32_pod.h"
static char marker[16] = "data-intact";
__attribute__((export_name("marker"))) char* marker_at(void) { return marker; }
__attribute__((noinline)) static int deep(int n) {
  volatile char buf[100];
  buf[0] = (char)n;
  buf[99] = (char)n;
  return n ? deep(n - 1) + buf[0] : buf[99];
}
K32_EXPORT(k32_handle) int32_t k32_handle(void) { return deep(1000); }
"""


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    return build_all(tmp_path_factory.mktemp("images"))


def test_every_shipped_image_fits_its_shadow_stack(images):
    shipped = load_image_stacks()["shipped"]
    for image in images:
        got = layout(image.wasm)
        assert got.stack_bytes == shipped, (image.name, got)
        # --stack-first: the stack is [0, shipped), the data above it.
        assert got.lowest_data >= got.stack_bytes, (image.name, got)
        assert got.deepest <= shipped, (image.name, got.deepest, got.path)


def test_a_frame_of_run_time_size_is_not_guessed(tmp_path):
    src = tmp_path / "vla.c"
    src.write_text(
        '#include "k32_pod.h"\n'
        "__attribute__((noinline)) static int sum(int n) { volatile char b[n]; b[0] = 1; return b[0]; }\n"
        "K32_EXPORT(k32_handle) int32_t k32_handle(void) { return sum(k32_resp_status(200) + 40); }\n"
    )
    with pytest.raises(ShadowStackError, match="run-time size|other than"):
        layout(compile_image("vla", [src], tmp_path).wasm)


def test_a_frame_past_the_stack_traps_and_leaves_the_data(tmp_path):
    src = tmp_path / "deep.c"
    src.write_text(DEEP)
    image = compile_image("deep", [src], tmp_path)
    with pytest.raises(ShadowStackError, match="recursion"):
        layout(image.wasm)
    store = wasmtime.Store(wasmtime.Engine())
    instance = wasmtime.Instance(store, wasmtime.Module(store.engine, image.wasm.read_bytes()), [])
    exports = instance.exports(store)
    memory = exports["memory"]
    at = exports["marker"](store)
    assert at >= load_image_stacks()["shipped"]
    with pytest.raises(wasmtime.Trap, match="out of bounds memory access"):
        exports["k32_handle"](store)
    assert bytes(memory.read(store, at, at + 11)) == b"data-intact"
