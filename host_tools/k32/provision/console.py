"""A node's console (docs/console.md) on a serial port or any pyserial URL
(socket://127.0.0.1:<console> for a simulator node): one K32_CMD line out, its K32_RESP answer
back, every other line kept as log."""

from __future__ import annotations

import os
import time
from collections import deque

import serial

from k32.boards import load_common
from k32.console_lines import (
    CMD_PREFIX,
    REFUSED_PREFIX,
    RESP_PREFIX,
    LineSplitter,
    MalformedAnswer,
    NodeRefused,
    answer_of,
    command_line,
    parse_answer,
)

__all__ = ["CMD_PREFIX", "CONSOLE_BAUD", "RESP_PREFIX", "Console", "ProvisionError", "open_port"]
CONSOLE_BAUD = 115200


class ProvisionError(RuntimeError):
    pass


def open_port(port: str, baud: int = CONSOLE_BAUD, timeout: float = 0.2):
    """Opens without toggling DTR/RTS, which would reset a board with auto-reset wiring."""
    if "://" not in port and not os.path.exists(port):
        raise ProvisionError(f"serial port {port} does not exist")
    try:
        ser = serial.serial_for_url(port, baudrate=baud, timeout=timeout, do_not_open=True, exclusive=True)
        if "://" not in port:
            ser.dtr = False
            ser.rts = False
        ser.open()
        return ser
    except (serial.SerialException, ValueError, OSError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "lock" in msg.lower() or "busy" in msg.lower():
            raise ProvisionError(f"serial port {port} is busy (another program has it open)") from None
        raise ProvisionError(f"cannot open {port}: {msg}") from None


class Console:
    """One node console. `on_log` sees every other line (never the secret-carrying one)."""

    def __init__(self, port: str, baud: int = CONSOLE_BAUD, on_log=None):
        self.port = port
        self.ser = open_port(port, baud)
        self.on_log = on_log
        # Console output seen while waiting for answers: the newest CONSOLE_LOG_KEPT lines.
        self.log_lines: deque[str] = deque(maxlen=int(load_common()["CONSOLE_LOG_KEPT"]))
        self._lines_in = LineSplitter()
        self._pending: deque[str] = deque()  # complete lines not yet looked at

    def close(self):
        self.ser.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _lines(self, deadline: float):
        """Lines until the deadline; those that arrived behind an answer wait for the next call."""
        while True:
            while self._pending:
                yield self._pending.popleft()
            if time.monotonic() >= deadline:
                return
            try:
                chunk = self.ser.read(4096)
            except serial.SerialException as e:
                raise ProvisionError(f"{self.port}: connection lost ({str(e).splitlines()[0]})") from None
            self._pending.extend(self._lines_in.feed(chunk or b""))

    def command(self, name: str, arg: dict | None = None, timeout: float = 10.0) -> dict:
        """Sends one command, returns the OK object; ERR and silence raise ProvisionError."""
        try:
            self.ser.write(command_line(name, arg))
            self.ser.flush()
        except serial.SerialException as e:
            raise ProvisionError(f"{self.port}: cannot write ({str(e).splitlines()[0]})") from None
        for text in self._lines(time.monotonic() + timeout):
            rest = answer_of(name, text)
            if rest is not None:
                return _answer(name, rest)
            if text.startswith(REFUSED_PREFIX):  # the console refused the connection itself
                raise ProvisionError(
                    f"the console on {self.port} refused the connection: {text[len(REFUSED_PREFIX) :].strip()}"
                )
            if not text.startswith(CMD_PREFIX):
                self.log_lines.append(text)
                if self.on_log:
                    self.on_log(text)
        raise ProvisionError(
            f"the node on {self.port} did not answer {name} within {timeout:g} s "
            "(is this its console, and is it running Kube32?)"
        )

    def follow(self, seconds: float, pattern: str):
        """Log lines starting with `pattern` seen within `seconds` (e.g. the [NET] lines)."""
        seen = [t for t in self.log_lines if t.startswith(pattern)]
        self.log_lines.clear()
        seen += [t for t in self._lines(time.monotonic() + seconds) if t.startswith(pattern)]
        return seen


def _answer(name: str, rest: str) -> dict:
    try:
        return parse_answer(rest)
    except NodeRefused as e:
        raise ProvisionError(f"the node refused {name}: {e}") from None
    except MalformedAnswer as e:
        raise ProvisionError(f"answer to {name} is {e}") from None
