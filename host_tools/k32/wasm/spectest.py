"""Runs wast2json output (JSON + .wasm files) against our interpreter through
`k32-wasm serve`, one fresh store per JSON file, one protocol line per command."""

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# wabt >= 1.0.30 enables the WebAssembly 2.0 proposals (bulk memory, reference types,
# multi-value, sign extension, saturating conversions, mutable globals) by default.
WAST2JSON_FLAGS: list[str] = []
FILE_TIMEOUT_S = 120


class SpecError(Exception):
    pass


@dataclass
class FileResult:
    path: Path
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list = field(default_factory=list)


def _hex(s: str) -> str:
    # "x" keeps an empty name a token of its own; hex keeps NUL and spaces intact.
    return "x" + s.encode("utf-8").hex()


def _arg(v: dict) -> str:
    t, val = v.get("type"), v.get("value")
    if t not in ("i32", "i64", "f32", "f64", "funcref", "externref"):
        raise SpecError(f"unsupported value type {t}")
    if t in ("funcref", "externref"):
        return f"{t}:{'null' if val in (None, 'null') else int(val)}"
    return f"{t}:{int(val)}"


def _is_nan(t: str, bits: int) -> bool:
    if t == "f32":
        return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x7FFFFF) != 0
    return (bits & 0x7FF0000000000000) == 0x7FF0000000000000 and (bits & 0xFFFFFFFFFFFFF) != 0


def _match(expected: dict, got: str) -> bool:
    t, want = expected["type"], expected.get("value")
    gt, _, gv = got.partition(":")
    if gt != t:
        return False
    if t in ("funcref", "externref"):
        if want in (None, "null"):
            return gv == "null"
        return gv != "null" and (t == "funcref" or int(gv) == int(want))
    bits = int(gv)
    if want == "nan:canonical":
        quiet = 0x7FC00000 if t == "f32" else 0x7FF8000000000000
        mask = 0x7FFFFFFF if t == "f32" else 0x7FFFFFFFFFFFFFFF
        return bits & mask == quiet
    if want == "nan:arithmetic":
        quiet = 0x00400000 if t == "f32" else 0x0008000000000000
        return _is_nan(t, bits) and bool(bits & quiet)
    return bits == int(want)


def _action_line(action: dict) -> str:
    mod = action.get("module", "-")
    if action["type"] == "invoke":
        args = " ".join(_arg(a) for a in action.get("args", []))
        return f"invoke {mod} {_hex(action['field'])} {args}".rstrip()
    if action["type"] == "get":
        return f"get {mod} {_hex(action['field'])}"
    raise SpecError(f"unknown action {action['type']}")


def plan(spec: dict, base: Path):
    """Yields (command, protocol line or None to skip) for each command of a wast2json file."""
    for cmd in spec.get("commands", []):
        typ = cmd["type"]
        try:
            if typ == "module":
                yield cmd, f"module {cmd.get('name', '-')} {base / cmd['filename']}"
            elif typ == "register":
                yield cmd, f"register {_hex(cmd['as'])} {cmd.get('name', '-')}"
            elif typ in ("action", "assert_return", "assert_trap", "assert_exhaustion"):
                yield cmd, _action_line(cmd["action"])
            elif typ in ("assert_invalid", "assert_malformed"):
                if cmd.get("module_type", "binary") != "binary":
                    yield cmd, None  # text-format modules test the text parser, not ours
                else:
                    yield cmd, f"check - {base / cmd['filename']}"
            elif typ in ("assert_unlinkable", "assert_uninstantiable"):
                yield cmd, f"module - {base / cmd['filename']}"
            else:
                yield cmd, None
        except SpecError:
            yield cmd, None


def judge(cmd: dict, reply: str) -> str | None:
    """None when the reply satisfies the command, else a one-line reason."""
    typ = cmd["type"]
    word, _, rest = reply.partition(" ")
    if typ in ("module", "register", "action"):
        return None if word == "ok" else f"expected success, got: {reply}"
    if typ == "assert_return":
        if word != "ok":
            return f"expected values, got: {reply}"
        got = rest.split()
        exp = cmd.get("expected", [])
        if len(got) != len(exp):
            return f"expected {len(exp)} results, got: {reply}"
        for e, g in zip(exp, got):
            if not _match(e, g):
                return f"expected {e}, got {g}"
        return None
    if typ == "assert_trap":
        if word == "trap":
            return None
        return f"expected trap \"{cmd.get('text')}\", got: {reply}"
    if typ == "assert_exhaustion":
        return None if word == "exhausted" else f"expected exhaustion, got: {reply}"
    if typ in ("assert_invalid", "assert_malformed"):
        return (
            None
            if word == "error" and rest.split(" ", 1)[0] in ("invalid", "malformed")
            else f"expected rejection ({cmd.get('text')}), got: {reply}"
        )
    if typ == "assert_unlinkable":
        return (
            None if reply.startswith("error unlinkable") else f"expected link error ({cmd.get('text')}), got: {reply}"
        )
    if typ == "assert_uninstantiable":
        return (
            None if reply.startswith("error trap") else f"expected instantiation trap ({cmd.get('text')}), got: {reply}"
        )
    return f"unsupported command {typ}"


def run_file(path: Path, tool: Path) -> FileResult:
    res = FileResult(path)
    try:
        spec = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        res.failed += 1
        res.failures.append(f"{path}: cannot read the JSON: {e}")
        return res
    steps = list(plan(spec, path.parent))
    lines = [line for _, line in steps if line is not None]
    try:
        proc = subprocess.run(
            [str(tool), "serve"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=FILE_TIMEOUT_S
        )
        replies = proc.stdout.splitlines()
        crash = f"k32-wasm exited with {proc.returncode}: {proc.stderr.strip()[-300:]}" if proc.returncode else None
    except subprocess.TimeoutExpired:
        replies, crash = [], f"timeout after {FILE_TIMEOUT_S}s"
    k = 0
    for cmd, line in steps:
        if line is None:
            res.skipped += 1
            continue
        reply = replies[k] if k < len(replies) else f"no reply ({crash or 'missing'})"
        k += 1
        why = judge(cmd, reply)
        if why is None:
            res.passed += 1
        else:
            res.failed += 1
            res.failures.append(f"{path.name}:{cmd.get('line', '?')}: {cmd['type']}: {why}")
    return res


def wast_to_json(wast: Path, out_dir: Path) -> Path:
    """Converts a .wast script with wast2json into out_dir; returns the JSON path."""
    out = out_dir / (wast.stem + ".json")
    r = subprocess.run(["wast2json", *WAST2JSON_FLAGS, str(wast), "-o", str(out)], capture_output=True, text=True)
    if r.returncode:
        raise SpecError(f"wast2json {wast}: {r.stderr.strip()}")
    return out
