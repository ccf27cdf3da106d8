"""A user's own pod, as a new user would run it: `k32 image build SRC.c --sd CARD`, then
`k32 sim up --sd CARD`, then `kubectl run NAME --image=kube32.io/sd/NAME@sha256:…`."""

import re

import pytest
from sd_card_helpers import k32, run_until_running, sim_up_with_card

from k32 import REPO_ROOT


@pytest.mark.slow
def test_build_run_own_image_from_the_card(tmp_path):
    src = tmp_path / "hello.c"
    src.write_text((REPO_ROOT / "images" / "echo" / "echo.c").read_text())
    card = tmp_path / "card"
    r = k32("image", "build", str(src), "--out", str(tmp_path / "out"), "--sd", str(card))
    assert r.returncode == 0, r.stderr
    ref = re.search(r"image: (kube32\.io/sd/hello@sha256:[0-9a-f]{64})", r.stdout).group(1)
    digest = ref.rsplit(":", 1)[1]
    assert (tmp_path / "out" / "hello.wasm.sha256").read_text().split()[0] == digest
    assert (card / "kube32" / "images" / "hello" / "hello.wasm").is_file()

    state, kubeconfig = sim_up_with_card(tmp_path, card)
    try:
        pod = run_until_running(kubeconfig, "hello", ref)
        assert pod["status"]["containerStatuses"][0]["imageID"] == f"wasm://sd/hello@sha256:{digest}"
    finally:
        k32("sim", "down", "--state", str(state))


def test_build_refuses_a_bad_name(tmp_path):
    src = tmp_path / "Bad_Name.c"
    src.write_text("int x;\n")
    r = k32("image", "build", str(src), "--out", str(tmp_path / "out"))
    assert r.returncode != 0 and "--name" in r.stderr
