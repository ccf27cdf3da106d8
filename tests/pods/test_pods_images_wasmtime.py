"""Each shipped image under wasmtime with a Python host shim (pods_wasmtime_shim): a second,
independent check of the pod ABI beside the firmware's own runs (firmware/tests/kubelet)."""

import pytest
import wasmtime
from pods_wasmtime_shim import ERR, Ctx, PodHost

from k32.abi.model import load
from k32.images.build import build_all, image_names

ABI = load()


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    out = tmp_path_factory.mktemp("images")
    return {i.name: i.wasm.read_bytes() for i in build_all(out)}


@pytest.mark.slow
def test_every_image_builds_reproducibly(images, tmp_path):
    again = {i.name: i for i in build_all(tmp_path)}
    assert set(images) == set(image_names()) >= {"echo", "hello", "crasher"}
    for name, data in images.items():
        assert again[name].wasm.read_bytes() == data, f"{name} is not byte-identical across builds"
        digest = (tmp_path / f"{name}.wasm.sha256").read_text().split()[0]
        assert digest == again[name].sha256


def test_imports_are_the_abi(images):
    """Every k32 import of every image exists in the ABI with the same signature."""
    sigs = {f.name: f for f in ABI.imports}
    wt = {"i32": "i", "i64": "I"}
    for name, data in images.items():
        module = wasmtime.Module(wasmtime.Engine(), data)
        for imp in module.imports:
            if imp.module != "k32":
                assert imp.module == "wasi_snapshot_preview1", (name, imp.module)
                continue
            assert imp.name in sigs, f"{name} imports k32.{imp.name}, which the ABI does not define"
            f = sigs[imp.name]
            got = "".join(wt[str(p)] for p in imp.type.params) + ":" + "".join(wt[str(r)] for r in imp.type.results)
            assert got == f.sig, (name, imp.name, got, f.sig)
        exports = {e.name for e in module.exports}
        assert "memory" in exports
        assert exports & {"k32_handle", "k32_main", "_start"}, name


def test_echo_answers_with_body_and_greeting(images):
    ctx = Ctx(
        env={"GREETING": "hello from echo"}, caps={"CHANNEL_IPC"}, method="POST", path="/echo/hello", body=b"payload"
    )
    host = PodHost(images["echo"], ctx, max_pages=1)  # the example's limits.memory: 64Ki
    assert host.call("k32_handle") == 0
    assert ctx.status == 200
    assert bytes(ctx.resp_body) == b"hello from echo\nPOST /echo/hello\npayload"
    assert ("Content-Type", "text/plain") in ctx.resp_headers
    assert ctx.published == [("echo.events", b"/echo/hello")]


def test_echo_without_channel_ipc_gets_perm(images):
    ctx = Ctx(env={}, method="GET", path="/x")
    host = PodHost(images["echo"], ctx)
    assert host.call("k32_handle") == 0
    assert ctx.published == []
    assert ctx.log == [f"publish failed: {ERR['PERM']}"]
    assert bytes(ctx.resp_body) == b"\nGET /x\n"  # GREETING unset: an empty first line


def test_hello_runs_to_completion(images):
    ctx = Ctx(env={"HOSTNAME": "hello-1"})
    host = PodHost(images["hello"], ctx)
    assert host.call("k32_main") == 0
    assert ctx.log == ["hello from a Kube32 pod"]
    assert bytes(ctx.stdout) == b"hello on stdout from hello-1\n"


def test_crasher_traps_or_exits(images):
    host = PodHost(images["crasher"], Ctx())
    with pytest.raises(wasmtime.Trap):
        host.call("k32_main")
    assert host.ctx.log == ["crasher starting; about to fail"]
    host = PodHost(images["crasher"], Ctx(env={"CRASH_MODE": "exit"}))
    assert host.call("k32_main") == 3


def test_printenv(images):
    ctx = Ctx(env={"A_B": "v"}, path="/A_B")
    PodHost(images["printenv"], ctx).call("k32_handle")
    assert bytes(ctx.resp_body) == b"v"
    ctx = Ctx(env={}, path="/NOPE")
    PodHost(images["printenv"], ctx).call("k32_handle")
    assert ctx.status == 404


def test_memory_limit_below_one_page_refuses_echo(images):
    with pytest.raises((wasmtime.WasmtimeError, wasmtime.Trap)):
        PodHost(images["echo"], Ctx(), max_pages=0)
