"""`k32 wasm run`: C programs built with clang --target=wasm32-wasi run unchanged."""

import subprocess
import sys

import pytest
from wasm_helpers import wasi_clang_works

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  printf("argc=%d", argc);
  for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
  printf("\n");
  const char* e = getenv("K32_TEST_ENV");
  printf("env=%s\n", e ? e : "(unset)");
  struct timespec ts;
  printf("clock=%d\n", clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec > 1600000000);
  unsigned char r[16] = {0};
  getentropy(r, sizeof r);
  int nonzero = 0;
  for (int i = 0; i < 16; i++) nonzero |= r[i];
  printf("random=%d\n", nonzero != 0);
  fprintf(stderr, "to stderr\n");
  if (argc > 2) exit(atoi(argv[2]));
  return 0;
}
"""


@pytest.fixture
def program(tmp_path):
    if not wasi_clang_works(tmp_path):
        pytest.skip("clang --target=wasm32-wasi (wasi-libc, libclang-rt-14-dev-wasm32) unavailable")
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    out = tmp_path / "prog.wasm"
    subprocess.run(["clang", "--target=wasm32-wasi", "-O2", str(src), "-o", str(out)], check=True)
    return out


def k32(*args, env=None):
    return subprocess.run([sys.executable, "-m", "k32.cli", "wasm", *args], capture_output=True, text=True, env=env)


def test_wasi_program(program, tool, monkeypatch):
    monkeypatch.setenv("K32_TEST_ENV", "pod-value")
    r = k32("run", str(program), "--", "hello world", "7")
    assert r.returncode == 7, r.stderr
    assert r.stdout.splitlines() == ["argc=3 [hello world] [7]", "env=pod-value", "clock=1", "random=1"]
    assert "to stderr" in r.stderr


@pytest.mark.slow
def test_invoke_export(tmp_path, tool):
    wat = tmp_path / "m.wat"
    wat.write_text(
        '(module (func (export "add") (param i32 i64) (result i64)'
        ' (i64.add (i64.extend_i32_s (local.get 0)) (local.get 1))))'
    )
    wasm = tmp_path / "m.wasm"
    subprocess.run(["wat2wasm", str(wat), "-o", str(wasm)], check=True)
    r = k32("run", str(wasm), "--invoke", "add", "-5", "7")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2"
    bad = k32("run", str(wasm), "--invoke", "add", "x", "7")
    assert bad.returncode == 2 and "not a valid number" in bad.stderr


@pytest.mark.slow
def test_trap_and_malformed(tmp_path, tool):
    wat = tmp_path / "t.wat"
    wat.write_text('(module (func (export "boom") (unreachable)))')
    wasm = tmp_path / "t.wasm"
    subprocess.run(["wat2wasm", str(wat), "-o", str(wasm)], check=True)
    r = k32("run", str(wasm), "--invoke", "boom")
    assert r.returncode == 3 and "trap: unreachable" in r.stderr
    junk = tmp_path / "junk.wasm"
    junk.write_bytes(b"\0asm\x01\0\0\0\x01\xff")
    r = k32("run", str(junk))
    assert r.returncode == 2 and "section" in r.stderr
