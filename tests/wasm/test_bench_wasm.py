"""`k32 bench wasm`: the frozen workload set builds, runs under every runtime with one checksum,
and a runtime that computes a different result fails the bench."""

import json
import shutil
import subprocess
import sys

import pytest
from wasm_helpers import wasi_clang_works

from k32.bench import wasm as bench


@pytest.fixture
def toolchains(tmp_path, tool):
    if not (shutil.which("gcc") and wasi_clang_works(tmp_path)):
        pytest.skip("clang --target=wasm32-wasi and gcc are needed for the workloads")


def test_every_workload_of_the_set_has_a_source():
    sources = {p.stem for p in bench.WORKLOAD_DIR.glob("*.c")}
    assert sources == set(bench.KINDS)
    assert len(bench.KINDS) >= 12


@pytest.mark.slow
@pytest.mark.bench
def test_one_workload_json(toolchains):
    r = subprocess.run(
        [sys.executable, "-m", "k32.cli", "bench", "wasm", "--workload", "crc", "--repeat", "1", "--json"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    (row,) = out["workloads"]
    assert row["workload"] == "crc" and row["checksum"] > 0
    for who in out["summary"]["runtimes"]:
        assert row[f"{who}_ms"] > 0  # CPU time read through WASI clock 2 under every runtime
    assert set(out["summary"]["verdict"]) == {
        "geomean >= 2.0x wasm3",
        "every workload >= 1.3x wasm3",
        "geomean <= 9.0x native time",
    }


@pytest.mark.slow
def test_a_wrong_result_fails_the_bench(toolchains, monkeypatch):
    real = bench.run_native

    def off_by_one(p):
        checksum, ns = real(p)
        return checksum + 1, ns

    monkeypatch.setattr(bench, "run_native", off_by_one)
    with pytest.raises(bench.BenchError, match="disagree"):
        bench.run_bench(["fib"], 1)
