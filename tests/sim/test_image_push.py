"""`k32 image push FILE --context C` installs a module into a node's wasm://sd/ store through
the API server's authenticated PUT /kube32/v1/sdimages/<name>; kubectl then runs it."""

import re

import pytest
import yaml
from sd_card_helpers import k32, run_until_running, sim_up_with_card

from k32 import REPO_ROOT

TOKEN = "push-token-7"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("push")
    card = root / "card"
    card.mkdir()
    state, kubeconfig = sim_up_with_card(root, card, "--token", TOKEN)
    src = root / "pushed.c"
    src.write_text((REPO_ROOT / "images" / "echo" / "echo.c").read_text())
    built = k32("image", "build", str(src), "--out", str(root / "out"))
    assert built.returncode == 0, built.stderr
    yield {"root": root, "card": card, "kubeconfig": kubeconfig, "wasm": root / "out" / "pushed.wasm"}
    k32("sim", "down", "--state", str(state))


def test_push_then_kubectl_run(cluster):
    r = k32("image", "push", str(cluster["wasm"]), "--context", "kube32", "--kubeconfig", str(cluster["kubeconfig"]))
    assert r.returncode == 0, r.stderr
    ref = re.search(r"image: (kube32\.io/sd/pushed@sha256:[0-9a-f]{64})", r.stdout).group(1)
    stored = cluster["card"] / "kube32" / "images" / "pushed" / "pushed.wasm"
    assert stored.read_bytes() == cluster["wasm"].read_bytes()
    run_until_running(cluster["kubeconfig"], "pushed", ref)


def test_push_needs_the_token(cluster, tmp_path):
    doc = yaml.safe_load(cluster["kubeconfig"].read_text())
    for u in doc["users"]:
        u["user"] = {"token": "not-the-token"}
    bad = tmp_path / "kubeconfig"
    bad.write_text(yaml.safe_dump(doc))
    r = k32("image", "push", str(cluster["wasm"]), "--context", "kube32", "--kubeconfig", str(bad), "--name", "nope")
    assert r.returncode != 0 and "401" in r.stderr
    assert not (cluster["card"] / "kube32" / "images" / "nope").exists()


def test_push_refuses_what_is_not_a_module(cluster, tmp_path):
    junk = tmp_path / "junk.wasm"
    junk.write_bytes(b"\0asm\x01\0\0\0" + b"\xff" * 32)  # the header, then garbage
    r = k32("image", "push", str(junk), "--context", "kube32", "--kubeconfig", str(cluster["kubeconfig"]))
    assert r.returncode != 0 and "not a valid Wasm module" in r.stderr
    assert not (cluster["card"] / "kube32" / "images" / "junk").exists()
    text = tmp_path / "notes.wasm"
    text.write_text("hello")
    r = k32("image", "push", str(text), "--context", "kube32", "--kubeconfig", str(cluster["kubeconfig"]))
    assert r.returncode != 0 and "not a WebAssembly module" in r.stderr
