"""`k32 check stacks`: the worst-case stack of each thread entry point, from the call graph
GCC writes for the build/mcu objects (-fcallgraph-info=su: every function's frame and its
calls), against the stack budgets of a board profile.

A path's cost is the sum of the frames on it. Calls through pointers and recursive cycles
have no bound in the graph: they count only when firmware/stack_check.yaml bounds them
(targets of an indirect call, depth of a cycle), and a thread that reaches one unbounded
is reported as a lower bound with the reason. Library functions (newlib, libstdc++) have
no frames in our objects and count as zero; the report lists how many were reached."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from k32 import REPO_ROOT

MCU_BUILD_DIR = REPO_ROOT / "build" / "mcu"
ANNOTATIONS = REPO_ROOT / "firmware" / "stack_check.yaml"
INDIRECT = "__indirect_call"
_NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "((?:[^"\\]|\\.)*)"')
_EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"')
_FRAME = re.compile(r"^(\d+) bytes \(([a-z,]+)\)$")


class StackError(RuntimeError):
    pass


@dataclass
class Fn:
    title: str
    name: str
    frame: int | None = None  # None: not ours (a library function)
    qualifier: str = ""
    calls: set = field(default_factory=set)


def load_graph(build_dir: Path = MCU_BUILD_DIR) -> dict[str, Fn]:
    files = []
    for lib in ("k32wasm", "k32core", "k32app"):
        files += sorted((Path(build_dir) / "CMakeFiles" / f"{lib}.dir").rglob("*.ci"))
    if not files:
        raise StackError(f"no call graphs in {build_dir}: run `k32 build firmware --target mcu` first")
    # Every object needs its own, current call graph: a compiler cache (ccache) restores
    # objects without one, and a missing graph would silently count as zero.
    for lib in ("k32wasm", "k32core", "k32app"):
        for obj in (Path(build_dir) / "CMakeFiles" / f"{lib}.dir").rglob("*.obj"):
            # the compiler writes .su and .ci together; a cache hit rewrites only the .su
            ci, su = obj.with_suffix(".ci"), obj.with_suffix(".su")
            if not ci.is_file() or (su.is_file() and ci.stat().st_mtime < su.stat().st_mtime):
                raise StackError(f"{ci} is missing or older than its frame sizes (a compiler-cache hit?): "
                                 "rebuild build/mcu without ccache")
    fns: dict[str, Fn] = {}
    for f in files:
        for line in f.read_text(errors="replace").splitlines():
            m = _NODE.match(line)
            if m:
                title, label = m.group(1), m.group(2).split("\\n")
                fn = fns.setdefault(title, Fn(title, label[0]))
                fr = _FRAME.match(label[-1]) if len(label) >= 3 else None
                if fr:
                    fn.name, fn.frame, fn.qualifier = label[0], int(fr.group(1)), fr.group(2)
                continue
            m = _EDGE.match(line)
            if m:
                fns.setdefault(m.group(1), Fn(m.group(1), m.group(1))).calls.add(m.group(2))
    return fns


def _find(fns: dict[str, Fn], needle: str) -> list[Fn]:
    """Our functions whose printable name is `needle` (after the return type, if any)."""
    pat = re.compile(r"(^|\s)" + re.escape(needle) + "$")
    return [f for f in fns.values() if f.frame is not None and pat.search(f.name)]


@dataclass
class Bound:
    bytes: int
    path: list[str]
    unbounded: set = field(default_factory=set)  # reasons the figure is only a lower bound
    library: set = field(default_factory=set)


def _depth(note) -> int:
    """A cycle's depth: a number; "common:NAME", a limit of boards/common.yaml (the code reads
    it as K32_NAME); or "path/to/file.h:kName", a constant in the source. The bound follows
    the limit the code enforces."""
    if isinstance(note, int):
        return note
    if str(note).startswith("common:"):
        from k32.boards import load_common
        name = str(note)[len("common:"):]
        value = load_common().get(name)
        if not isinstance(value, int):
            raise StackError(f"{ANNOTATIONS.name}: recursion limit {note!r}: no such number in boards/common.yaml")
        return value
    path, _, name = str(note).rpartition(":")
    text = (REPO_ROOT / path).read_text()
    m = re.search(r"\b" + re.escape(name) + r"\s*=\s*(\d+)", text)
    if not m:
        raise StackError(f"{ANNOTATIONS.name}: recursion limit {note!r}: no constant {name} in {path}")
    return int(m.group(1))


def worst(fns: dict[str, Fn], entry: Fn, notes: dict) -> Bound:
    indirect = notes.get("indirect") or {}
    recursion = notes.get("recursion") or {}
    memo: dict[str, Bound] = {}
    on_path: list[str] = []

    def visit(title: str) -> Bound:
        if title in memo:
            return memo[title]
        fn = fns.get(title)
        if fn is None or fn.frame is None:
            return Bound(0, [], set(), {fn.name if fn else title})
        if title in on_path:  # a recursive cycle
            cycle = on_path[on_path.index(title):]
            depth = next((_depth(d) for k, d in recursion.items() if any(k in fns[t].name for t in cycle)), None)
            if depth is None:
                return Bound(0, [], {f"recursion through {fn.name}"}, set())
            per_round = sum(fns[t].frame or 0 for t in cycle)
            return Bound(per_round * (int(depth) - 1), [f"{fn.name} (x{depth})"], set(), set())
        on_path.append(title)
        best = Bound(0, [], set(), set())
        unb: set = set()
        lib: set = set()
        if fn.qualifier != "static" and "bounded" not in fn.qualifier:
            unb.add(f"dynamic frame in {fn.name}")
        targets = set(fn.calls)
        if INDIRECT in targets:
            targets.discard(INDIRECT)
            # GCC cuts some printable names (std::function's): the mangled title also matches
            listed = next((v for k, v in indirect.items() if k in fn.name or k in fn.title), None)
            if listed is None:
                unb.add(f"indirect call in {fn.name}")
            else:
                for pattern in listed:
                    found = [f for f in fns.values() if f.frame is not None and re.search(pattern, f.name)]
                    if not found:
                        raise StackError(f"{ANNOTATIONS.name}: indirect target {pattern!r} matches no function")
                    targets.update(f.title for f in found)
        for t in sorted(targets):
            b = visit(t)
            unb |= b.unbounded
            lib |= b.library
            if b.bytes > best.bytes or not best.path:
                best = b
        on_path.pop()
        res = Bound(fn.frame + best.bytes, [f"{fn.name} ({fn.frame})"] + best.path, unb, lib)
        memo[title] = res
        return res

    return visit(entry.title)


def check(board_name: str, build_dir: Path = MCU_BUILD_DIR) -> dict:
    from k32.boards import ROLES, load_board
    board = load_board(board_name)
    notes = yaml.safe_load(ANNOTATIONS.read_text()) or {}
    fns = load_graph(build_dir)
    rows = []
    for thread, spec in (notes.get("threads") or {}).items():
        found = _find(fns, spec["entry"])
        if len(found) != 1:
            raise StackError(f"{ANNOTATIONS.name}: thread {thread}: entry {spec['entry']!r} matches "
                             f"{len(found)} functions in {build_dir}")
        inner = worst(fns, found[0], notes)
        b = Bound(inner.bytes, list(inner.path), set(inner.unbounded), set(inner.library))  # memo stays intact
        hops = []
        for step in spec.get("via") or []:
            hop = _find(fns, step)
            if len(hop) != 1:
                raise StackError(f"{ANNOTATIONS.name}: thread {thread}: via {step!r} matches {len(hop)} functions")
            b.bytes += hop[0].frame
            hops.append(f"{hop[0].name} ({hop[0].frame})")
        b.path = hops + b.path
        key = spec.get("budget")
        budget = board.budgets[key]["bytes"] if key else None
        role = spec.get("role")
        if role is not None and role not in ROLES:
            raise StackError(f"{ANNOTATIONS.name}: thread {thread}: role {role!r} is not one of {', '.join(ROLES)}")
        if role is not None and role not in board.roles:
            # The node refuses that role on this board (K32_BOARD_CONTROL_PLANE), so the
            # thread never starts there: its figure is shown, not held against the budget.
            verdict = f"not run ({role} only)"
        elif budget is None:
            verdict = "no budget"
        elif b.bytes > budget:
            verdict = "EXCEEDS"
        else:
            verdict = "within" if not b.unbounded else "within (lower bound)"
        rows.append({"thread": thread, "what": spec.get("what", ""), "entry": found[0].name,
                     "worst_bytes": b.bytes, "budget_key": key, "budget_bytes": budget, "verdict": verdict,
                     "lower_bound": bool(b.unbounded), "unbounded": sorted(b.unbounded)[:20],
                     "unbounded_count": len(b.unbounded), "library_calls": len(b.library),
                     "deepest_path": b.path})
    return {"board": board.name, "build_dir": str(build_dir), "threads": rows,
            "ok": all(r["verdict"] != "EXCEEDS" for r in rows)}
