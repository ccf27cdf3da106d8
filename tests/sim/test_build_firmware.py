"""ensure_firmware(): when the binary counts as stale, and what a failed build reports."""

import os
import time

import pytest

from k32.build import firmware as fw


def make_binary(build_dir, mtime):
    build_dir.mkdir(parents=True, exist_ok=True)
    binary = build_dir / fw.NODE_TARGET
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    os.utime(binary, (mtime, mtime))
    return binary


def test_missing_binary_is_stale(tmp_path):
    assert fw.is_stale(tmp_path / "nothing")


def test_binary_newer_than_every_source_is_fresh(tmp_path):
    make_binary(tmp_path / "b", time.time() + 3600)
    assert not fw.is_stale(tmp_path / "b")


def test_old_binary_is_stale_unless_a_later_build_stamped_it(tmp_path):
    build = tmp_path / "b"
    make_binary(build, 1_000_000)
    assert fw.is_stale(build)
    stamp = build / ".k32-node.built"
    stamp.touch()
    future = time.time() + 3600
    os.utime(stamp, (future, future))
    assert not fw.is_stale(build)


def test_override_must_be_executable(tmp_path, monkeypatch):
    target = tmp_path / "not-exec"
    target.write_text("x")
    monkeypatch.setenv("K32_NODE_BINARY", str(target))
    with pytest.raises(fw.FirmwareBuildError, match="not an executable file"):
        fw.ensure_firmware()
    target.chmod(0o755)
    assert fw.ensure_firmware() == target


def test_failure_tail_shows_the_first_compiler_error():
    log = "\n".join(
        ["[ 10%] Building a.o"] * 50
        + ["src/a.cpp:3:1: error: expected ';' before '}'", "  3 | }"]
        + ["[ 20%] Building b.o"] * 50
        + ["gmake: *** [Makefile:200: k32-node] Error 2"]
    )
    tail = fw._tail(log)
    assert tail.splitlines()[0] == "src/a.cpp:3:1: error: expected ';' before '}'"
    assert tail.splitlines()[-1] == "gmake: *** [Makefile:200: k32-node] Error 2"
    assert len(tail.splitlines()) <= fw.LOG_TAIL_LINES + 1
