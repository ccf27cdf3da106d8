"""Helpers the tests in tests/calls import by name (a module of its own: `from conftest import`
finds whichever conftest.py pytest loaded last, another directory's when several are given)."""

from __future__ import annotations

import json
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class CallResult:
    rc: int
    status: int
    len: int
    ms: int
    body: str


def run_call(binary: Path, url: str, *args: str, timeout: float = 30) -> tuple[list[CallResult], str]:
    """Runs `k32-call call URL args…`; returns the per-call results and stderr (log lines)."""
    p = subprocess.run([str(binary), "call", url, *args], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    results = [CallResult(**json.loads(line)) for line in p.stdout.splitlines() if line.startswith("{")]
    return results, p.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
