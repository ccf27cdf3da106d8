"""The node console's line protocol (docs/console.md) as both console clients speak it: the
serial one of `k32 provision` and the simulator's TCP one. A node's output is outside input:
lines are cut at CONSOLE_ANSWER_MAX (the rest dropped) and an answer must be one JSON object."""

from __future__ import annotations

import json

from k32.boards import load_common

CMD_PREFIX = "K32_CMD:"
RESP_PREFIX = "K32_RESP:"
REFUSED_PREFIX = "K32_RESP:? ERR"  # the console refused the connection itself


class NodeRefused(Exception):
    """The node answered ERR; the message is its reason."""


class MalformedAnswer(Exception):
    """The answer line is not `OK[ <json object>]` or `ERR <reason>`; the message says how
    ("not JSON (...)", "not a JSON object: ...", "malformed: ...")."""


def command_line(name: str, arg: dict | None = None) -> bytes:
    """`K32_CMD:<name>[ <json>]\\n`, ASCII only so that no byte of a secret depends on the
    console's encoding."""
    return (CMD_PREFIX + name + ("" if arg is None else " " + json.dumps(arg, ensure_ascii=True)) + "\n").encode(
        "ascii"
    )


class LineSplitter:
    """Bytes in, complete lines out (CR LF or LF, decoded as UTF-8 with replacement). A line
    longer than CONSOLE_ANSWER_MAX is handed on cut there and the rest of it dropped, so a peer
    that never sends a newline cannot grow the buffer."""

    def __init__(self):
        self.max = int(load_common()["CONSOLE_ANSWER_MAX"])
        self._buf = b""
        self._skipping = False  # dropping the rest of a line already handed on

    def feed(self, data: bytes) -> list[str]:
        self._buf += data
        out = []
        while True:
            cut = self._buf.find(b"\n")
            if cut < 0 and len(self._buf) <= self.max:
                return out
            if self._skipping:
                self._buf = self._buf[cut + 1 :] if cut >= 0 else b""
                self._skipping = cut < 0
                continue
            if cut < 0 or cut > self.max:
                raw, self._buf, self._skipping = self._buf[: self.max], self._buf[self.max :], True
            else:
                raw, self._buf = self._buf[:cut], self._buf[cut + 1 :]
            out.append(raw.decode("utf-8", "replace").rstrip("\r"))


def answer_of(name: str, line: str) -> str | None:
    """What follows `K32_RESP:<name> ` in line, or None when line answers something else."""
    want = f"{RESP_PREFIX}{name} "
    return line[len(want) :] if line.startswith(want) else None


def parse_answer(rest: str) -> dict:
    """The object of an `OK[ <json object>]` answer ({} without one); NodeRefused for ERR,
    MalformedAnswer for anything else."""
    if rest.startswith("ERR"):
        raise NodeRefused(rest[3:].strip())
    if not rest.startswith("OK"):
        raise MalformedAnswer(f"malformed: {rest[:120]!r}")
    body = rest[2:].strip()
    if not body:
        return {}
    try:
        obj = json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # RecursionError: nested deeper than Python recurses
        detail = str(e) if isinstance(e, ValueError) else "nested too deeply"
        raise MalformedAnswer(f"not JSON ({detail[:120]})") from None
    if not isinstance(obj, dict):
        raise MalformedAnswer(f"not a JSON object: {body[:120]!r}")
    return obj


def _no_constant(word: str):
    raise ValueError(f"{word} is not JSON")  # Python's json takes NaN and Infinity; JSON does not
