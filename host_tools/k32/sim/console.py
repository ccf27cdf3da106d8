"""Client for a node's TCP console (docs/console.md): one command line, one answer line."""

from __future__ import annotations

import json
import socket

RESP_PREFIX = "K32_RESP:"
REFUSED = "K32_RESP:? ERR"


class ConsoleError(RuntimeError):
    pass


def parse_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ConsoleError(f"console address {address!r} is not HOST:PORT")
    return host, int(port)


def command(address: str, name: str, arg: dict | None = None, timeout: float = 5.0) -> dict:
    """Send `K32_CMD:<name>[ <json>]`; return the OK answer's object, raise on ERR."""
    line = f"K32_CMD:{name}" + (f" {json.dumps(arg)}" if arg is not None else "") + "\n"
    want = f"{RESP_PREFIX}{name} "
    try:
        with socket.create_connection(parse_address(address), timeout=timeout) as s:
            s.sendall(line.encode())
            buf = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    raise ConsoleError(f"console {address} closed before answering {name}")
                buf += chunk
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    text = raw.decode(errors="replace").rstrip("\r")
                    if text.startswith(want):
                        return _parse_answer(address, name, text[len(want) :])
                    if text.startswith(REFUSED):  # the console refused the connection itself
                        raise ConsoleError(f"console {address} refused the connection: {text[len(REFUSED) :].strip()}")
    except OSError as e:
        raise ConsoleError(f"console {address}: {e}")


def _parse_answer(address: str, name: str, rest: str) -> dict:
    if rest.startswith("ERR"):
        raise ConsoleError(f"console {address}: {name} failed: {rest[3:].strip()}")
    if not rest.startswith("OK"):
        raise ConsoleError(f"console {address}: malformed answer to {name}: {rest[:200]!r}")
    body = rest[2:].strip()
    if not body:
        return {}
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as e:
        raise ConsoleError(f"console {address}: {name} answer is not JSON ({e})")
    if not isinstance(obj, dict):
        raise ConsoleError(f"console {address}: {name} answer is not a JSON object")
    return obj
