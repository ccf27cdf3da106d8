"""Helpers for the end-to-end API tests (the cluster itself comes from tests/conftest.py)."""

import json
import queue
import subprocess
import threading
import time

import pytest

KUBECTL_VERSIONS = ["1.37", "1.20"]


def kubectl(cluster, *args, input=None) -> str:
    """kubectl's output; the test fails when it does."""
    p = cluster.kubectl(*args, input=input)
    assert p.returncode == 0, f"kubectl {' '.join(map(str, args))}: {p.stderr}"
    return p.stdout


def namespace(cluster, name: str) -> str:
    """name, created unless an earlier test on the shared cluster made it."""
    if cluster.kubectl("get", "namespace", name).returncode != 0:
        kubectl(cluster, "create", "namespace", name)
    return name


def apply(cluster, obj: dict) -> str:
    """`kubectl apply` of one object."""
    return kubectl(cluster, "apply", "-f", "-", input=json.dumps(obj))


def header(output: str) -> list[str]:
    """The column names of a kubectl table (its first line)."""
    lines = output.strip().splitlines()
    assert lines, f"empty table output: {output!r}"
    return lines[0].split()


def rows(output: str) -> dict[str, list[str]]:
    """Table rows keyed by their first column."""
    return {line.split()[0]: line.split() for line in output.strip().splitlines()[1:] if line.strip()}


class LineReader:
    """Reads a child's stdout lines on a thread, so the test can wait with a timeout."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, predicate, timeout: float = 15.0) -> list[str]:
        """Lines read until one satisfies predicate (included); fails on timeout or EOF."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"no matching line within {timeout}s; got {seen}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                pytest.fail(
                    f"stream ended before a matching line; got {seen}; "
                    f"stderr: {self.proc.stderr.read() if self.proc.stderr else ''}"
                )
            seen.append(line)
            if predicate(line):
                return seen
