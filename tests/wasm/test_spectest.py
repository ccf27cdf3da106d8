"""Our .wast conformance tests through the spec-test runner, and the runner itself."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from k32.wasm.spectest import run_file, wast_to_json

WAST_DIR = Path(__file__).parent / "wast"
WASTS = sorted(WAST_DIR.glob("*.wast"))

pytestmark = pytest.mark.skipif(not shutil.which("wast2json"), reason="wabt is not installed")


@pytest.mark.parametrize("wast", WASTS, ids=[w.stem for w in WASTS])
def test_conformance(wast, tool, tmp_path):
    r = run_file(wast_to_json(wast, tmp_path), tool)
    assert r.failed == 0, "\n".join(r.failures)
    assert r.passed > 0


def test_runner_reports_wrong_results(tool, tmp_path):
    wast = tmp_path / "wrong.wast"
    wast.write_text("""
(module (func (export "one") (result i32) (i32.const 1))
        (func (export "nan") (result f32) (f32.const nan:0x600000)))
(assert_return (invoke "one") (i32.const 2))
(assert_trap (invoke "one") "unreachable")
(assert_return (invoke "nan") (f32.const nan:canonical))
(assert_return (invoke "nan") (f32.const nan:arithmetic))
(assert_invalid (module (func (result i32) (i32.const 0))) "type mismatch")
(assert_return (invoke "one") (i32.const 1))
""")
    r = run_file(wast_to_json(wast, tmp_path), tool)
    assert (r.passed, r.failed) == (3, 4), r.failures


def test_cli_summary_line(tmp_path):
    wast = WAST_DIR / "int.wast"
    out = subprocess.run(
        [sys.executable, "-m", "k32.cli", "wasm", "spectest", str(wast)], capture_output=True, text=True
    )
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0, out.stdout + out.stderr
    assert lines[-1].endswith("passed, 0 failed")
    assert lines[0].startswith(str(wast))
