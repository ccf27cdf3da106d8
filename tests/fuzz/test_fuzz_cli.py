"""`k32 fuzz` without building anything: every firmware/fuzz/fuzz_*.cpp is a target, unknown
names are refused, and every target gets seeds from real inputs."""

import subprocess
import sys

import pytest

from k32 import REPO_ROOT
from k32.fuzz.seeds import write_seeds
from k32.fuzz.targets import all_targets

K32 = [sys.executable, "-m", "k32.cli"]


def test_every_fuzz_source_is_a_listed_target():
    r = subprocess.run([*K32, "fuzz", "--list"], capture_output=True, text=True, check=True)
    listed = {line.split("\t")[0] for line in r.stdout.splitlines()}
    sources = {
        p.stem.removeprefix("fuzz_").replace("_", "-") for p in (REPO_ROOT / "firmware" / "fuzz").glob("fuzz_*.cpp")
    }
    assert listed == sources
    assert {"wasm", "json", "yaml", "http", "protobuf", "console", "patch"} <= listed


def test_unknown_target_is_refused():
    r = subprocess.run([*K32, "fuzz", "nosuch", "--seconds", "1"], capture_output=True, text=True, check=False)
    assert r.returncode != 0
    assert "unknown target" in r.stderr and "json" in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(all_targets()) - {"wasm"}))
def test_every_target_has_seeds(tmp_path, name):
    n = write_seeds(name, tmp_path / name)
    assert n > 0
    files = list((tmp_path / name).iterdir())
    assert files and all(f.stat().st_size > 0 for f in files)
    if name == "http":  # requests as kubectl sent them
        assert any(b"User-Agent: kubectl/" in f.read_bytes() for f in files)
