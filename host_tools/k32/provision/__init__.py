"""`k32 provision`: Wi-Fi credentials and the API bearer token, sent over a node's console
(docs/console.md) on a serial port or any pyserial URL (socket://127.0.0.1:<console> for a
simulator node). Secrets travel as JSON, are checked before sending, and are never echoed,
logged or put into an error message."""
from __future__ import annotations

import json
import os
import re
import time

import serial

CMD_PREFIX = "K32_CMD:"
RESP_PREFIX = "K32_RESP:"
REFUSED_PREFIX = "K32_RESP:? ERR"
CONSOLE_BAUD = 115200
# RFC 6750 b64token: what can stand after "Bearer " in an Authorization header.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
TOKEN_MAX = 512
SSID_MAX_BYTES = 32
WPA_MIN, WPA_MAX = 8, 63
WPA_HEX_LEN = 64


class ProvisionError(RuntimeError):
    pass


def check_token(token: str) -> None:
    if token == "":
        return
    if len(token) > TOKEN_MAX or not TOKEN_RE.fullmatch(token):
        raise ProvisionError("token: must be 1-512 characters of A-Z a-z 0-9 - . _ ~ + / "
                             "(then optional '='): it travels in an HTTP Authorization header")


def check_wifi(ssid: str, password: str) -> None:
    raw = ssid.encode("utf-8")
    if not 1 <= len(raw) <= SSID_MAX_BYTES:
        raise ProvisionError(f"ssid: must be 1-{SSID_MAX_BYTES} bytes in UTF-8, got {len(raw)}")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in ssid):
        raise ProvisionError("ssid: must not contain control characters")
    if password == "":
        return
    if len(password) == WPA_HEX_LEN and re.fullmatch(r"[0-9A-Fa-f]+", password):
        return
    if not all(0x20 <= ord(c) <= 0x7E for c in password):
        raise ProvisionError("password: a WPA2 passphrase is printable ASCII (spaces and quotes are fine)")
    if not WPA_MIN <= len(password) <= WPA_MAX:
        raise ProvisionError(f"password: a WPA2 passphrase has {WPA_MIN}-{WPA_MAX} characters, got {len(password)}")


def open_port(port: str, baud: int = CONSOLE_BAUD, timeout: float = 0.2):
    """Opens without toggling DTR/RTS, which would reset a board with auto-reset wiring."""
    if "://" not in port and not os.path.exists(port):
        raise ProvisionError(f"serial port {port} does not exist")
    try:
        ser = serial.serial_for_url(port, baudrate=baud, timeout=timeout, do_not_open=True,
                                    exclusive=True)
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
        self.log_lines: list[str] = []   # console output seen while waiting for answers
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
                return _answer(name, text[len(want):])
            if text.startswith(REFUSED_PREFIX):  # the console refused the connection itself
                raise ProvisionError(f"the console on {self.port} refused the connection: "
                                     f"{text[len(REFUSED_PREFIX):].strip()}")
            if not text.startswith(CMD_PREFIX):
                self.log_lines.append(text)
                if self.on_log:
                    self.on_log(text)
        raise ProvisionError(f"the node on {self.port} did not answer {name} within {timeout:g} s "
                             "(is this its console, and is it running Kube32?)")

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


def set_token(console: Console, token: str, timeout: float = 10.0) -> dict:
    check_token(token)
    console.command("TOKEN", {"token": token}, timeout)
    status = console.command("STATUS", None, timeout)
    if bool(status.get("token")) != bool(token):
        raise ProvisionError("the node accepted TOKEN but its STATUS does not show it")
    return status


def set_wifi(console: Console, ssid: str, password: str, timeout: float = 10.0) -> dict:
    check_wifi(ssid, password)
    answer = console.command("WIFI", {"ssid": ssid, "password": password}, timeout)
    status = console.command("STATUS", None, timeout)
    if not status.get("wifi"):
        raise ProvisionError("the node accepted WIFI but its STATUS does not show it")
    return answer
