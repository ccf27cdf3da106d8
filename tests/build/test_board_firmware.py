"""The board firmware's one build definition: `k32 build firmware --board B --list` shows what
the ESP-IDF component compiles (every generated source present, nothing twice), and the
ESP-IDF compile check explains what it needs when it cannot run."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from k32 import REPO_ROOT

GENERATED = (
    "k32_abi_table.cpp",
    "k32_openapi_docs.cpp",
    "k32_schema_table.cpp",
    "k32_images.cpp",
    "k32_web_assets.cpp",
)


def k32(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "k32.cli", *args], cwd=REPO_ROOT, capture_output=True, text=True, env=env, timeout=900
    )


def test_list_shows_every_generated_source_once():
    r = k32("build", "firmware", "--board", "c3", "--list")
    assert r.returncode == 0, r.stderr + r.stdout
    files = r.stdout.split()
    assert len(files) == len(set(files))
    names = [Path(f).name for f in files]
    for g in GENERATED:
        assert g in names, g
    assert all(Path(f).is_file() for f in files)
    port = [f for f in files if "/port/" in f]
    # the board's port and the layers it shares with the host's, never the host's own
    assert any("/port/esp32/" in f for f in port)
    assert all(any(d in f for d in ("/port/esp32/", "/port/posix/", "/port/tls_mbedtls/")) for f in port)
    assert any(f.endswith("/src/app/node_app.cpp") for f in files)
    assert any(f.endswith("/src/wasm/exec.cpp") for f in files)


def test_list_refuses_the_simulator():
    r = k32("build", "firmware", "--board", "sim", "--list")
    assert r.returncode != 0 and "simulator" in r.stderr


def test_compile_only_without_a_checkout_says_how_to_get_one():
    env = {k: v for k, v in os.environ.items() if k != "IDF_PATH"}
    r = k32("build", "firmware", "--board", "c3", "--compile-only", env=env)
    assert r.returncode != 0
    assert "no ESP-IDF checkout" in r.stderr and "--idf DIR" in r.stderr and "esp-idf" in r.stderr


def test_compile_only_rejects_an_incomplete_checkout(tmp_path):
    (tmp_path / "tools").mkdir()
    r = k32("build", "firmware", "--board", "c3", "--compile-only", "--idf", str(tmp_path))
    assert r.returncode != 0 and "not a complete ESP-IDF checkout" in r.stderr


def test_compile_only_is_for_the_riscv_board():
    r = k32("build", "firmware", "--board", "s3", "--compile-only", "--idf", str(REPO_ROOT))
    assert r.returncode != 0 and "supports c3" in r.stderr


@pytest.mark.skipif(not os.environ.get("K32_IDF_CHECKOUT"), reason="needs an ESP-IDF checkout (K32_IDF_CHECKOUT)")
def test_compile_check_against_esp_idf():
    args = ["build", "firmware", "--board", "c3", "--compile-only", "--idf", os.environ["K32_IDF_CHECKOUT"]]
    if os.environ.get("K32_LITTLEFS_CHECKOUT"):
        args += ["--littlefs", os.environ["K32_LITTLEFS_CHECKOUT"]]
    r = k32(*args)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "sources compile for board c3" in r.stdout
