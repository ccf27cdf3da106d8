"""A node's console (docs/console.md) on a serial port or any pyserial URL
(socket://127.0.0.1:<console> for a simulator node): one K32_CMD line out, its K32_RESP answer
back, every other line kept as log."""

from __future__ import annotations

import json
import os
import time

import serial

CMD_PREFIX = "K32_CMD:"
RESP_PREFIX = "K32_RESP:"
REFUSED_PREFIX = "K32_RESP:? ERR"
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
        self.log_lines: list[str] = []  # console output seen while waiting for answers
        self._buf = b""

    def close(self):
        self.ser.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _lines(self, deadline: float):
        while time.monotonic() < deadline:
            try:
                chunk = self.ser.read(4096)
            except serial.SerialException as e:
                raise ProvisionError(f"{self.port}: connection lost ({str(e).splitlines()[0]})") from None
            if chunk:
                self._buf += chunk
            while b"\n" in self._buf:
                raw, self._buf = self._buf.split(b"\n", 1)
                yield raw.decode("utf-8", "replace").rstrip("\r")

    def command(self, name: str, arg: dict | None = None, timeout: float = 10.0) -> dict:
        """Sends one command, returns the OK object; ERR and silence raise ProvisionError."""
        line = CMD_PREFIX + name + ("" if arg is None else " " + json.dumps(arg, ensure_ascii=True))
        try:
            self.ser.write((line + "\n").encode("ascii"))
            self.ser.flush()
        except serial.SerialException as e:
            raise ProvisionError(f"{self.port}: cannot write ({str(e).splitlines()[0]})") from None
        want = f"{RESP_PREFIX}{name} "
        for text in self._lines(time.monotonic() + timeout):
            if text.startswith(want):
                return _answer(name, text[len(want) :])
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
        seen, self.log_lines = self.log_lines, []
        seen += list(self._lines(time.monotonic() + seconds))
        return [t for t in seen if t.startswith(pattern)]


def _answer(name: str, rest: str) -> dict:
    if rest.startswith("ERR"):
        raise ProvisionError(f"the node refused {name}: {rest[3:].strip()}")
    if not rest.startswith("OK"):
        raise ProvisionError(f"malformed answer to {name}: {rest[:120]!r}")
    body = rest[2:].strip()
    if not body:
        return {}
    try:
        obj = json.loads(body)
    except ValueError:
        raise ProvisionError(f"answer to {name} is not JSON") from None
    return obj if isinstance(obj, dict) else {}
