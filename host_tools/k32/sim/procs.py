"""Identify a process by (pid, start time) so that a recycled pid is never killed by mistake."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def start_time(pid: int) -> str | None:
    """An opaque token for when `pid` started, or None when no such process exists."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        # Field 22 (starttime); the command name (field 2) may contain spaces, so split
        # after its closing parenthesis.
        return stat.rsplit(")", 1)[1].split()[19]
    except FileNotFoundError:
        return None
    except OSError:
        pass
    # No procfs (macOS): ps prints the start time to the second.
    out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True)
    return out.stdout.strip() or None


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def alive(pid: int, started: str) -> bool:
    """True when `pid` is still the very process that started at `started`."""
    return bool(pid) and start_time(pid) == started and not is_zombie(pid)


def _reap(pid: int) -> None:
    # Our own children must be reaped or they stay zombies; others' are not ours to wait on.
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop(pid: int, started: str, timeout: float = 10.0) -> bool:
    """SIGTERM, then SIGKILL after `timeout`; only if the pid is still that process.

    Returns True when a process was stopped, False when it was already gone."""
    if not alive(pid, started):
        _reap(pid)
        return False
    try:
        os.kill(pid, signal.SIGTERM)
        # A stopped (SIGSTOP) node only sees the SIGTERM once continued.
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _reap(pid)
        if not alive(pid, started):
            return True
        time.sleep(0.05)
    if alive(pid, started):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return True
        for _ in range(100):
            _reap(pid)
            if not alive(pid, started):
                break
            time.sleep(0.05)
    return True
