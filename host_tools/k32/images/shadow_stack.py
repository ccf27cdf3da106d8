"""The deepest shadow stack a pod image can use, read from its code (wasm2wat's text): each
function's frame is what its prologue takes from __stack_pointer, a call path's use the sum of
its frames. An image this cannot bound (a frame of run-time size, a call through a table,
recursion) is an error, not a guess: its stack would have to be measured another way."""

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

SP = "$__stack_pointer"
_FUNC = re.compile(r"^\s*\(func (\$\S+|\(;\d+;\))")
_CONST = re.compile(r"^i32\.const (-?\d+)$")


class ShadowStackError(Exception):
    pass


@dataclass
class StackLayout:
    stack_bytes: int  # __stack_pointer's start: with --stack-first, the stack's size
    lowest_data: int  # lowest address a data segment starts at (1 << 32 when there is none)
    deepest: int  # the most any export's call path takes
    path: list[str]  # that path, outermost first


def _wat(wasm: Path) -> list[str]:
    r = subprocess.run(["wasm2wat", str(wasm)], capture_output=True, text=True)
    if r.returncode:
        raise ShadowStackError(f"{wasm}: wasm2wat failed: {r.stderr.strip()}")
    return r.stdout.splitlines()


def layout(wasm: Path) -> StackLayout:
    lines = _wat(wasm)
    frames: dict[str, int] = {}
    calls: dict[str, set[str]] = {}
    exports: list[str] = []
    stack_bytes = None
    lowest_data = 1 << 32
    cur = None
    body: list[str] = []

    def close():
        if cur is None:
            return
        frames[cur] = 0
        calls[cur] = set()
        for i, ins in enumerate(body):
            if ins.startswith("call_indirect"):
                raise ShadowStackError(f"{wasm}: {cur} calls through a table")
            if ins.startswith("call "):
                calls[cur].add(ins.split()[1])
            # clang's prologue: global.get sp; i32.const N; i32.sub; local.tee; global.set sp.
            # Its epilogue: i32.const N; i32.add; global.set sp. Anything else (alloca, a
            # variable-length array) is a frame of run-time size.
            if ins == f"global.get {SP}":
                m = _CONST.match(body[i + 1]) if i + 1 < len(body) else None
                if not (m and i + 2 < len(body) and body[i + 2] == "i32.sub"):
                    raise ShadowStackError(f"{wasm}: {cur} reads {SP} other than in clang's prologue")
                frames[cur] = max(frames[cur], int(m.group(1)))
            if ins == f"global.set {SP}":
                prologue = i >= 4 and body[i - 1].startswith("local.tee") and body[i - 2] == "i32.sub"
                epilogue = i >= 2 and body[i - 1] == "i32.add" and _CONST.match(body[i - 2])
                if not (prologue or epilogue):
                    raise ShadowStackError(f"{wasm}: {cur} sets {SP} other than in clang's prologue and epilogue")

    for raw in lines:
        line = raw.strip()
        m = _FUNC.match(raw)
        if m:
            close()
            cur, body = m.group(1), []
            continue
        if line.startswith("(global " + SP):
            close()
            cur = None
            c = re.search(r"\(i32\.const (\d+)\)", line)
            stack_bytes = int(c.group(1)) if c else None
        elif line.startswith("(data"):
            c = re.search(r"\(i32\.const (\d+)\)", line)
            if c:
                lowest_data = min(lowest_data, int(c.group(1)))
        elif line.startswith("(export") and "(func " in line:
            exports.append(re.search(r"\(func (\S+?)\)", line).group(1))
        elif raw.startswith("  (") and not raw.startswith("   "):  # another item of the module
            close()
            cur = None
        elif cur is not None and not line.startswith("(local"):
            body.append(line.rstrip(")"))
    close()
    if stack_bytes is None:
        raise ShadowStackError(f"{wasm}: no {SP} global")

    memo: dict[str, tuple[int, list[str]]] = {}

    def deepest(f: str, seen: tuple[str, ...]) -> tuple[int, list[str]]:
        if f in seen:
            raise ShadowStackError(f"{wasm}: recursion through {' -> '.join(seen + (f,))}")
        if f not in frames:  # an import: the host's stack, not the shadow stack
            return 0, []
        if f not in memo:
            best = (0, [])
            for g in sorted(calls[f]):
                d = deepest(g, seen + (f,))
                if d[0] > best[0]:
                    best = d
            memo[f] = (frames[f] + best[0], [f, *best[1]])
        return memo[f]

    worst = (0, [])
    for e in exports:
        d = deepest(e, ())
        if d[0] > worst[0]:
            worst = d
    return StackLayout(stack_bytes, lowest_data, worst[0], worst[1])
