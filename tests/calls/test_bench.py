"""`k32 bench calls --json` reports the three cases in one run (numbers are not judged)."""

import json
import subprocess
import sys

import pytest


@pytest.mark.slow
@pytest.mark.bench
def test_bench_calls_json(k32_call):
    p = subprocess.run(
        [sys.executable, "-m", "k32.cli", "bench", "calls", "--calls", "20", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    for case in ("in_process", "cross_node"):
        assert r[case]["n"] == 20 and r[case]["failed"] == 0
        assert r[case]["calls_per_s"] > 0
    assert r["tls_handshake_and_request"]["failed"] == 0
