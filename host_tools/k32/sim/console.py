"""Client for a node's TCP console (docs/console.md): one command line, one answer line."""

from __future__ import annotations

import socket

from k32.console_lines import (
    REFUSED_PREFIX,
    LineSplitter,
    MalformedAnswer,
    NodeRefused,
    answer_of,
    command_line,
    parse_answer,
)


class ConsoleError(RuntimeError):
    pass


def parse_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ConsoleError(f"console address {address!r} is not HOST:PORT")
    return host, int(port)


def command(address: str, name: str, arg: dict | None = None, timeout: float = 5.0) -> dict:
    """Send `K32_CMD:<name>[ <json>]`; return the OK answer's object, raise on ERR."""
    lines = LineSplitter()
    try:
        with socket.create_connection(parse_address(address), timeout=timeout) as s:
            s.sendall(command_line(name, arg))
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    raise ConsoleError(f"console {address} closed before answering {name}")
                for text in lines.feed(chunk):
                    rest = answer_of(name, text)
                    if rest is not None:
                        return _parse_answer(address, name, rest)
                    if text.startswith(REFUSED_PREFIX):  # the console refused the connection itself
                        raise ConsoleError(
                            f"console {address} refused the connection: {text[len(REFUSED_PREFIX) :].strip()}"
                        )
    except OSError as e:
        raise ConsoleError(f"console {address}: {e}")


def _parse_answer(address: str, name: str, rest: str) -> dict:
    try:
        return parse_answer(rest)
    except NodeRefused as e:
        raise ConsoleError(f"console {address}: {name} failed: {e}") from None
    except MalformedAnswer as e:
        raise ConsoleError(f"console {address}: {name} answer is {e}") from None
