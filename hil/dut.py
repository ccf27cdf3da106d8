"""A device-under-test handle in the spirit of pytest-embedded's `dut`: `expect()` a regex on
the node's console output, `write()` a line, and `command()` the console protocol
(docs/console.md). Boards have one serial port for both; a simulator node logs to a file
and answers commands on its TCP console."""

from __future__ import annotations

import re
import time
from pathlib import Path

from k32.boards import load_common
from k32.provision import Console, ProvisionError

DEFAULT_TIMEOUT = 30.0
# Reconnect a TCP console quiet for longer than this: under the node's idle limit, with margin.
CONSOLE_IDLE_S = load_common()["CONSOLE_IDLE_MS"] / 1000 / 2


class ExpectTimeout(AssertionError):
    pass


class Dut:
    def __init__(self, name: str, console_url: str, log_file: Path | None = None):
        self.name = name
        self.console_url = console_url
        self._log_file = Path(log_file) if log_file else None
        self._log_pos = self._log_file.stat().st_size if self._log_file and self._log_file.exists() else 0
        self._console: Console | None = None
        self._last_used = time.monotonic()
        self._pending: list[str] = []

    # ---- console protocol ----
    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = Console(self.console_url)
        return self._console

    def command(self, name: str, arg: dict | None = None, timeout: float = 10.0) -> dict:
        # A TCP console closes a connection that completes no line within its idle limit, and
        # a session's Dut may sit unused that long between tests: such a connection is opened
        # anew. (A serial port is never reopened here: that can reset a board.)
        idle = time.monotonic() - self._last_used
        if self._console is not None and self.console_url.startswith("socket://") and idle > CONSOLE_IDLE_S:
            self.close()
        try:
            return self.console.command(name, arg, timeout)
        finally:
            self._last_used = time.monotonic()

    def write(self, line: str) -> None:
        self.console.ser.write((line + "\n").encode("utf-8"))

    def reconnect(self) -> None:
        """After a reboot: a TCP console is a new connection; a USB port may re-enumerate."""
        self.close()

    def close(self) -> None:
        if self._console is not None:
            try:
                self._console.close()
            except ProvisionError:
                pass
            self._console = None

    # ---- output ----
    def _new_lines(self, deadline: float):
        if self._log_file is not None:
            while time.monotonic() < deadline:
                try:
                    with open(self._log_file, "rb") as f:
                        f.seek(self._log_pos)
                        chunk = f.read()
                except OSError:
                    chunk = b""
                if b"\n" in chunk:
                    usable = chunk[: chunk.rindex(b"\n") + 1]
                    self._log_pos += len(usable)
                    yield from usable.decode("utf-8", "replace").splitlines()
                else:
                    time.sleep(0.05)
        else:
            con = self.console
            while con.log_lines:
                yield con.log_lines.popleft()
            yield from con._lines(deadline)

    def expect(self, pattern: str | bytes, timeout: float = DEFAULT_TIMEOUT) -> re.Match:
        """The first line (after everything already consumed) matching `pattern`."""
        rx = re.compile(pattern if isinstance(pattern, str) else pattern.decode())
        deadline = time.monotonic() + timeout
        seen = []
        for line in self._new_lines(deadline):
            m = rx.search(line)
            if m:
                return m
            seen.append(line)
        tail = "\n".join(seen[-10:])
        raise ExpectTimeout(f"{self.name}: no line matching {rx.pattern!r} within {timeout:g} s; last lines:\n{tail}")
