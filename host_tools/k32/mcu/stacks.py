"""`k32 check stacks`: the worst-case stack of each thread entry point, from the call graph
GCC writes for the build/mcu objects (-fcallgraph-info=su: every function's frame and its
calls), against the stack budgets of a board profile.

A path's cost is the sum of the frames on it. Calls through pointers and recursive cycles
have no bound in the graph: they count only when firmware/stack_check.yaml bounds them
(targets of an indirect call, depth of a cycle), and a thread that reaches one unbounded
is reported as a lower bound with the reason (which fails the check: its figure proves
nothing).

An indirect call's targets are listed for the function that makes the call, or, when that
function is shared by callers that hand it different callbacks (ObjectStore::for_each and
its std::function, the store's listener call), per caller: `from:` maps each caller to what
it passes, so a path through one caller counts only that caller's callbacks. A caller the
annotation does not name leaves the call unbounded.

Library functions (newlib, libstdc++, libgcc) have no frames in our objects: their frames and
calls are read from the archives the link uses (library_frames.py) and joined to the graph,
so a path into vsnprintf counts _svfprintf_r and what it calls. The compiler's own calls to
run-time helpers (__aeabi_*, memcpy for a block copy), which the .ci files leave out, come
from each object's relocations. A library function with a dynamic frame or an indirect call
needs an annotation like our own; `ends_program` stops a path where the program ends (abort,
a throw). The port (port/<platform>) is the board's, not the bare-metal one build/mcu links:
each port function a thread calls counts the board figure recorded for it (the ESP32 port
with lwIP, mbedTLS, FreeRTOS below it: port_figures.py), and one without a figure leaves the
thread a lower bound; the report lists how many port functions each thread reaches.

In-process calls (`inproc:` in the annotations) are cut where they start: the function that
checks for the in-process call's free stack before running a pod. Below that cut the call has
a budget of its own (inproc_call_stack), so a thread counts the cut function's frame and
not what runs beneath it. The call is checked once as the `pod-call` row; the stack one hop
of a chain takes (from that function down to the same function one pod further) as the
`inproc-hop` row; and a thread that carries a whole chain (`inproc: chain`) as its path down to
the first call + (CALL_CHAIN_MAX - 1) hops + one call, against its own budget + the chain's."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from k32 import REPO_ROOT

from . import port_figures
from .library_frames import CACHE_DIR, Library, LibraryError, link_archives

MCU_BUILD_DIR = REPO_ROOT / "build" / "mcu"
ANNOTATIONS = REPO_ROOT / "firmware" / "stack_check.yaml"
INDIRECT = "__indirect_call"
_NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "((?:[^"\\]|\\.)*)"')
_EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"(?: label: "([^"]*)")?')
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
    indirect_sites: set = field(default_factory=set)  # "file:line:col" of each call through a pointer
    origin: str = ""  # "" ours; the archive a library frame was read from; "port" (board-specific)
    port_missing: str = ""  # a port function without a sound board figure: why
    port_path: list = field(default_factory=list)  # its deepest path on the board (the figures' table)


class Graph(dict):
    """title -> Fn, with the link's archives (to add a library function an annotation names)."""

    library: Library | None = None
    port: set = frozenset()


def read_call_graphs(files: list[Path]) -> tuple[Graph, dict[Path, dict[str, str]]]:
    """Functions, frames and calls from GCC's -fcallgraph-info=su files; also, per file, the
    symbol -> title of each function it defines. Constructor/destructor aliases are followed
    and split-off parts named."""
    fns = Graph()
    defined: dict[Path, dict[str, str]] = {}  # per .ci: symbol -> title of each function it defines
    for f in files:
        here = defined.setdefault(f, {})
        for line in f.read_text(errors="replace").splitlines():
            m = _NODE.match(line)
            if m:
                title, label = m.group(1), m.group(2).split("\\n")
                fn = fns.setdefault(title, Fn(title, label[0]))
                fr = _FRAME.match(label[-1]) if len(label) >= 3 else None
                if fr:
                    fn.name, fn.frame, fn.qualifier = label[0], int(fr.group(1)), fr.group(2)
                    here[title.rsplit(":", 1)[-1]] = title
                continue
            m = _EDGE.match(line)
            if m:
                fn = fns.setdefault(m.group(1), Fn(m.group(1), m.group(1)))
                fn.calls.add(m.group(2))
                if m.group(2) == INDIRECT and m.group(3):
                    fn.indirect_sites.add(m.group(3))
    _resolve_aliases(fns)
    _name_clones(fns)
    return fns, defined


def load_graph(build_dir: Path = MCU_BUILD_DIR, archives: list[Path] | None = None) -> Graph:
    """Our functions from the .ci files, then the library functions they reach, with frames
    read from the link's archives (`archives`; by default the ones the build links with)."""
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
                raise StackError(
                    f"{ci} is missing or older than its frame sizes (a compiler-cache hit?): "
                    "rebuild build/mcu without ccache"
                )
    fns, defined = read_call_graphs(files)
    _add_library_calls(fns, defined)
    if archives is None:
        cache = CACHE_DIR
        try:
            archives = link_archives(build_dir)
        except LibraryError:
            if (Path(build_dir) / "CMakeCache.txt").is_file():
                raise
            # not a build tree and no cross toolchain (a unit test's graph): no archives, so
            # every library call is reported as having no frame (a lower bound), not as zero
            archives = []
    else:
        cache = None  # archives named by the caller (tests): read each time, nothing kept
    fns.library, fns.port = Library(archives, cache), _port_symbols(build_dir)
    attach_library(fns, fns.library, fns.port)
    return fns


_RELOC_SECTION = re.compile(r"^RELOCATION RECORDS FOR \[\.text\.(\S+)\]:$")
_RELOC_CALL = re.compile(r"^[0-9a-f]+ R_ARM_THM_(?:CALL|JUMP24|JUMP19|JUMP11|JUMP8)\s+(\S+)$")


def _add_library_calls(fns: dict[str, Fn], defined: dict[Path, dict[str, str]]) -> None:
    """Calls the compiler adds below the call graph it writes: run-time helpers (64-bit
    division, double arithmetic: __aeabi_*) and block copies (memcpy, memset) never appear
    in a .ci file. Each object's relocations name them; a call to a symbol none of our
    objects defines becomes an edge of the function whose section makes it."""
    objs = [f.with_suffix(".obj") for f in defined if f.with_suffix(".obj").is_file()]
    tool = shutil.which("arm-none-eabi-objdump")
    if not objs or not tool:
        return
    ours = {sym for titles in defined.values() for sym in titles}
    nm = shutil.which("arm-none-eabi-nm")
    if nm:  # the aliases GCC emits (C1/D1) and anything else our objects define
        out = subprocess.run([nm, "--defined-only", *map(str, objs)], capture_output=True, text=True).stdout
        ours |= {p[2] for p in (ln.split() for ln in out.splitlines()) if len(p) == 3}
    by_obj = {f.with_suffix(".obj"): titles for f, titles in defined.items()}
    out = subprocess.run([tool, "-rw", *map(str, objs)], capture_output=True, text=True).stdout
    titles: dict[str, str] = {}
    caller = None
    for line in out.splitlines():
        if line.endswith("file format elf32-littlearm"):
            titles = by_obj.get(Path(line.split(":")[0]), {})
            caller = None
            continue
        m = _RELOC_SECTION.match(line)
        if m:
            caller = titles.get(m.group(1))
            continue
        if not line.strip():
            caller = None
            continue
        m = _RELOC_CALL.match(line)
        if m and caller is not None and m.group(1) not in ours:
            fns[caller].calls.add(m.group(1))
            fns.setdefault(m.group(1), Fn(m.group(1), m.group(1)))


def _port_symbols(build_dir: Path) -> set:
    """The functions the port library (port/<platform>) defines: the board's port (ESP-IDF,
    FreeRTOS, lwIP) is not what build/mcu links, so its frames are not counted here."""
    port = Path(build_dir) / "libk32port.a"
    tool = shutil.which("arm-none-eabi-nm")
    if not port.is_file() or not tool:
        return set()
    out = subprocess.run([tool, "--defined-only", "-g", str(port)], capture_output=True, text=True).stdout
    return {parts[2] for parts in (ln.split() for ln in out.splitlines()) if len(parts) == 3 and parts[1] in "TW"}


_PORT_NAME = re.compile(r"(^|[\s*&])k32::port::")


def attach_library(fns: dict[str, Fn], lib: Library, port: set = frozenset(), symbols=None) -> None:
    """Give every function our objects call but do not define its frame from the archives,
    and add the library functions below it, so a path into newlib or libstdc++ counts what
    runs there. A symbol no archive defines keeps no frame (the check reports it)."""
    if symbols is None:
        todo = [t for t, f in fns.items() if f.frame is None and f.title != INDIRECT]
    else:
        todo = [t for t in symbols if t not in fns or fns[t].frame is None]
        for t in todo:
            fns.setdefault(t, Fn(t, t))
    made: list[Fn] = []
    while todo:
        title = todo.pop()
        if title in port or _PORT_NAME.search(fns[title].name):
            # linked ahead of the archives (the port's definition is the one used), or a
            # port function this platform does not define: the board's port provides it
            fns[title].origin = "port"
            continue
        key = title if "(" in title and title.split("(", 1)[0].endswith(".a") else lib.lookup(title)
        if key is None:
            continue
        lf = lib.fn(key)
        fn = fns.get(title) or fns.setdefault(title, Fn(title, lf.name))
        if fn.frame is not None:
            continue
        fn.frame, fn.origin = lf.frame, lib.archive_of(key)
        fn.qualifier = "dynamic" if lf.dynamic else "static"
        fn.name = lf.name
        made.append(fn)
        for c in lf.calls:
            t = c[len("global:") :] if c.startswith("global:") else c
            if t not in fns or (fns[t].frame is None and fns[t].origin != "port"):
                fns.setdefault(t, Fn(t, t))
                todo.append(t)
            fn.calls.add(t)
        if lf.indirect:
            fn.calls.add(INDIRECT)
            fn.indirect_sites.add(f"{fn.origin}:{lf.name}")
    _demangle(made)


def _demangle(made: list[Fn]) -> None:
    tool = shutil.which("arm-none-eabi-c++filt") or shutil.which("c++filt")
    if not made or not tool:
        return
    out = subprocess.run([tool], input="\n".join(f.name for f in made), capture_output=True, text=True).stdout
    for f, name in zip(made, out.splitlines()):
        f.name = name


_CLONE = re.compile(r"^(?:.*:)?(_Z[^.]+)((?:\.\w+\.\d+)+)$")


def _name_clones(fns: dict[str, Fn]) -> None:
    """GCC prints a split-off part of a function (foo.part.0) as "0(args)": name it from its
    symbol, so annotations and reports can say which function it is."""
    cut = [f for f in fns.values() if f.frame is not None and re.match(r"^\d+\(", f.name) and _CLONE.match(f.title)]
    tool = shutil.which("arm-none-eabi-c++filt") or shutil.which("c++filt")
    if not cut or not tool:
        return
    syms = [_CLONE.match(f.title) for f in cut]
    out = subprocess.run([tool], input="\n".join(m.group(1) for m in syms), capture_output=True, text=True).stdout
    for f, m, name in zip(cut, syms, out.splitlines()):
        f.name = name.replace("(anonymous namespace)", "{anonymous}") + f" [clone {m.group(2)}]"


_CTOR_DTOR_1 = re.compile(r"(?<=[0-9A-Za-z_])([CD])1(?=[EI])")


def _resolve_aliases(fns: dict[str, Fn]) -> None:
    """GCC emits a class's complete-object constructor/destructor (C1/D1) as an alias of the
    base-object one (C2/D2) and names the alias in its calls, so without this a call to
    json::Value's destructor (recursive) would count as a library call of zero bytes."""
    alias: dict[str, str] = {}
    called = {c for fn in fns.values() for c in fn.calls}
    for title in called | fns.keys():
        if title in fns and fns[title].frame is not None:
            continue
        for m in _CTOR_DTOR_1.finditer(title):
            cand = title[: m.start()] + m.group(1) + "2" + title[m.end() :]
            if cand in fns and fns[cand].frame is not None:
                alias[title] = cand
                break
    if alias:
        for fn in fns.values():
            if fn.calls & alias.keys():
                fn.calls = {alias.get(c, c) for c in fn.calls}


def _find(fns: dict[str, Fn], needle: str) -> list[Fn]:
    """Our functions whose printable name is `needle` (after the return type, if any)."""
    pat = re.compile(r"(^|\s)" + re.escape(needle) + "$")
    return [f for f in fns.values() if f.frame is not None and not f.origin and pat.search(f.name)]


@dataclass
class Bound:
    bytes: int
    path: list[str]
    unbounded: set = field(default_factory=set)  # reasons the figure is only a lower bound
    library: set = field(default_factory=set)  # port functions reached (their board figures)
    # deepest stack in use when an in-process call starts (frames above the cut function),
    # None when no in-process call is reached
    to_call: int | None = None
    call_path: list[str] = field(default_factory=list)
    # the deepest path with every recursive cycle taken once: what the innermost round of a
    # cycle can still call below itself
    flat: int = 0
    flat_path: list[str] = field(default_factory=list)


@functools.cache  # boards/common.yaml is read once, not per cycle met
def _depth(note) -> int:
    """A cycle's depth: a number; "common:NAME", a limit of boards/common.yaml (the code reads
    it as K32_NAME); or "path/to/file.h:kName", a constant in the source. The bound follows
    the limit the code enforces."""
    if isinstance(note, int):
        return note
    if str(note).startswith("common:"):
        from k32.boards import load_common

        name = str(note)[len("common:") :]
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


def _inproc_cut(fns: dict[str, Fn], notes: dict) -> set:
    spec = notes.get("inproc")
    if not spec:
        return set()
    found = _find(fns, spec["call"])
    if len(found) != 1:
        raise StackError(f"{ANNOTATIONS.name}: inproc call {spec['call']!r} matches {len(found)} functions")
    return {found[0].title}


def _named(fn: Fn, key: str) -> bool:
    # GCC cuts some printable names (std::function's): the mangled title also matches
    return key in fn.name or key in fn.title


@dataclass
class Targets:
    """What one `indirect:` entry allows: for any caller (`any`), or per caller (`by_caller`:
    caller substring -> titles), when the function making the call is shared."""

    any: set | None = None
    by_caller: dict = field(default_factory=dict)


def _match_targets(fns: dict[str, Fn], patterns, where: str) -> set:
    if not isinstance(patterns, list):
        raise StackError(f"{ANNOTATIONS.name}: indirect {where}: a list of patterns, not {patterns!r}")
    out: set = set()
    for pattern in patterns:
        if pattern.startswith("symbol:"):
            # a library function (a C locale's converter, a stdio hook), by its exact symbol
            sym = pattern[len("symbol:") :]
            lib = getattr(fns, "library", None)
            if lib is not None and lib.lookup(sym) is None and lib.find(sym) is not None:
                sym = lib.find(sym)  # file-local: named by its archive member
            if lib is not None:
                attach_library(fns, lib, fns.port, [sym])
            if sym not in fns or fns[sym].frame is None:
                raise StackError(
                    f"{ANNOTATIONS.name}: indirect target {pattern!r}: no archive of the link defines it ({where})"
                )
            out.add(sym)
            continue
        if pattern.startswith("in:"):
            # by where it is defined: a pattern over "file:symbol" (every function of a
            # table of operations, e.g. the cipher wrappers of one C file)
            rx = pattern[len("in:") :]
            found = [f.title for f in fns.values() if f.frame is not None and not f.origin and re.search(rx, f.title)]
        else:
            found = [
                f.title
                for f in fns.values()
                if f.frame is not None and f.origin in ("", "closed") and re.search(pattern, f.name)
            ]
        if not found:
            raise StackError(f"{ANNOTATIONS.name}: indirect target {pattern!r} matches no function ({where})")
        out.update(found)
    return out


_MANAGER = re.compile(r"\b_M_manager\(")
_STD_FUNCTION_H = "bits/std_function.h"


def _std_function_kinds(fn: Fn) -> set:
    """What fn's calls through std::function's own code do, read from the header lines GCC
    names as their call sites: "manage" (copy or destroy a functor: its _M_manager) or
    "invoke" (call it). Other pointer calls (function pointers, virtuals) are not sorted."""
    kinds = set()
    for site in fn.indirect_sites:
        path, _, rest = site.partition(":")
        if not path.endswith(_STD_FUNCTION_H):
            continue
        try:
            text = _header_line(path, int(rest.split(":")[0]))
        except (OSError, ValueError, IndexError):
            continue
        if "_M_manager(" in text:
            kinds.add("manage")
        elif "_M_invoker(" in text:
            kinds.add("invoke")
    return kinds


_LINES: dict[str, list[str]] = {}


def _header_line(path: str, line: int) -> str:
    if path not in _LINES:
        _LINES[path] = Path(path).read_text(errors="replace").splitlines()
    return _LINES[path][line - 1]


def _check_kinds(fns: dict[str, Fn], key: str, makers: list[Fn], allowed: set, where: str) -> None:
    """A function that destroys or copies a std::function reaches a functor's manager, and
    one that calls a std::function reaches a handler: an entry that lists none of that kind
    for it leaves a call out, so it is refused rather than counted as zero."""
    managers = any(_MANAGER.search(fns[t].name) for t in allowed)
    handlers = any(not _MANAGER.search(fns[t].name) for t in allowed)
    for f in makers:
        kinds = _std_function_kinds(f)
        if "manage" in kinds and not managers:
            raise StackError(
                f"{ANNOTATIONS.name}: indirect {key!r} ({where}): {f.name} copies or destroys a "
                "std::function, but no _M_manager is listed"
            )
        if "invoke" in kinds and not handlers:
            raise StackError(
                f"{ANNOTATIONS.name}: indirect {key!r} ({where}): {f.name} calls a std::function, "
                "but only managers are listed"
            )


def indirect_targets(fns: dict[str, Fn], notes: dict) -> dict[str, Targets]:
    """Every `indirect:` entry resolved against the graph, all checked up front so an
    annotation cannot outlive the code it describes: a target pattern that matches nothing,
    a key that names no function making an indirect call, or a `from:` caller that calls
    none of them is an error, reached by a thread or not."""
    out: dict[str, Targets] = {}
    callers: dict[str, set] = {}
    for f in fns.values():
        for c in f.calls:
            callers.setdefault(c, set()).add(f.title)
    for key, spec in (notes.get("indirect") or {}).items():
        makers = [f for f in fns.values() if f.frame is not None and INDIRECT in f.calls and _named(f, key)]
        if not makers:
            raise StackError(f"{ANNOTATIONS.name}: indirect {key!r} names no function that calls through a pointer")
        if isinstance(spec, dict):
            unknown = set(spec) - {"from", "signature"}
            if unknown or not isinstance(spec.get("from"), dict) or not spec["from"]:
                raise StackError(
                    f"{ANNOTATIONS.name}: indirect {key!r}: a list of patterns or "
                    "`from: {caller: [patterns]}` (with an optional `signature: [patterns]`)"
                )
            t = Targets()
            their = {c for f in makers for c in callers.get(f.title, ())}
            for caller, patterns in spec["from"].items():
                if not any(_named(fns[c], caller) for c in their if c in fns):
                    raise StackError(f"{ANNOTATIONS.name}: indirect {key!r}: caller {caller!r} does not call it")
                t.by_caller[caller] = _match_targets(fns, patterns, f"{key} from {caller}")
                _check_kinds(fns, key, makers, t.by_caller[caller], f"from {caller}")
            # Every callback of the signature must be claimed by a caller: a callback handed
            # to the shared function from a new place cannot go uncounted.
            claimed = set().union(*t.by_caller.values())
            for f in sorted(_match_targets(fns, spec.get("signature") or [], f"{key} signature") - claimed):
                raise StackError(
                    f"{ANNOTATIONS.name}: indirect {key!r}: {fns[f].name} matches its signature but no caller lists it"
                )
            out[key] = t
        else:
            out[key] = Targets(any=_match_targets(fns, spec, key))
            _check_kinds(fns, key, makers, out[key].any, "any caller")
    return out


def stated_frames(fns: dict[str, Fn], notes: dict) -> None:
    """`frames:` in the annotations: a bound stated for a function no archive of this link
    holds (the board's toolchain provides it) or whose frame is dynamic, with its reason
    next to it. An entry for a function no thread's graph has is an error."""
    for sym, n in (notes.get("frames") or {}).items():
        fn = fns.get(sym)
        if fn is None or not isinstance(n, int):
            raise StackError(f"{ANNOTATIONS.name}: frames {sym!r}: no such function in the graph (or not a number)")
        if fn.frame is None:
            fn.frame, fn.qualifier, fn.origin = n, "static", "stated"
        elif fn.qualifier == "dynamic":
            fn.frame, fn.qualifier = fn.frame + n, "bounded"


def _ends_program(fns: dict[str, Fn], notes: dict) -> set:
    """Titles of the functions listed under ends_program: an exact symbol, or a printable
    name's beginning followed by `*` (std::__throw_*)."""
    out = set()
    for entry in notes.get("ends_program") or []:
        if entry.endswith("*"):
            out |= {t for t, f in fns.items() if f.frame is not None and f.name.startswith(entry[:-1])}
        elif entry in fns:
            out.add(entry)
    return out


def worst(fns: dict[str, Fn], entry: Fn, notes: dict, resolved: dict[str, Targets] | None = None) -> Bound:
    indirect = indirect_targets(fns, notes) if resolved is None else resolved
    recursion = notes.get("recursion") or {}
    cut = _inproc_cut(fns, notes)
    ends = _ends_program(fns, notes)
    memo: dict = {}
    on_path: list[str] = []
    # what identifies a visit: the title, or (title, caller) for a call listed per caller, so
    # a walker reached again through another caller's callback is not taken for recursion
    on_keys: list = []

    def listed_for(fn: Fn) -> Targets | None:
        return next((v for k, v in indirect.items() if _named(fn, k)), None)

    def targets_of(fn: Fn, caller: str | None, unb: set) -> set:
        """What fn calls: its direct calls and, for a call through a pointer, the targets
        listed for it (for its caller, when listed per caller); unb gets why not, if not."""
        targets = set(fn.calls)
        if INDIRECT in targets:
            targets.discard(INDIRECT)
            listed = listed_for(fn)
            if listed is None:
                unb.add(f"indirect call in {fn.name}")
            elif listed.any is not None:
                targets |= listed.any
            else:
                by = next((v for k, v in listed.by_caller.items() if caller and _named(fns[caller], k)), None)
                if by is None:
                    who = fns[caller].name if caller else "the thread's start"
                    unb.add(f"indirect call in {fn.name} from {who} (no targets listed for that caller)")
                else:
                    targets |= by
        return targets

    def visit(title: str) -> Bound:
        fn = fns.get(title)
        listed = listed_for(fn) if fn is not None and INDIRECT in fn.calls else None
        # a call listed per caller depends on who called: remembered per (function, caller)
        caller = on_path[-1] if on_path else None
        key = (title, caller) if listed is not None and listed.any is None else title
        if key in memo:
            return memo[key]
        if fn is None:
            return Bound(0, [], {f"no frame for {title} (called, never defined)"}, set())
        if fn.port_missing or fn.origin.startswith(("port", "closed")):
            # The board's port: its figure (the port function with ESP-IDF below it) comes
            # from the figures' table; one without a sound figure leaves a lower bound.
            if fn.frame is None:
                return Bound(0, [], {fn.port_missing or f"no board figure for {fn.name}"}, {fn.name})
            step = f"{fn.name} ({fn.frame}, {fn.origin})"
            steps = [step] + [f"  {p}" for p in fn.port_path]
            unb = {fn.port_missing} if fn.port_missing else set()
            return Bound(fn.frame, steps, unb, {fn.name}, flat=fn.frame, flat_path=steps)
        if fn.frame is None:
            # in no archive of the link: nothing says how deep it goes
            return Bound(0, [], {f"no frame for {fn.name} (in none of the link's archives)"}, set())
        if title in ends:
            # the program stops here (abort, a throw no handler catches): what runs below
            # is the crash report, not the thread's work
            step = f"{fn.name} ({fn.frame}, {fn.origin or 'ours'}, ends the program)"
            return Bound(fn.frame, [step], set(), set(), flat=fn.frame, flat_path=[step])
        if title in cut and on_path:
            # An in-process call: its frame is on this stack; what runs beneath it has its
            # own budget (the pod-call row), checked by the function before it goes deeper.
            step = f"{fn.name} ({fn.frame}, in-process call: its own budget)"
            return Bound(fn.frame, [step], set(), set(), 0, [step], flat=fn.frame, flat_path=[step])
        if key in on_keys:  # a recursive cycle
            cycle = on_path[on_keys.index(key) :]
            depth = next((_depth(d) for k, d in recursion.items() if any(k in fns[t].name for t in cycle)), None)
            if depth is None:
                return Bound(0, [], {f"recursion through {fn.name}"}, set())
            per_round = sum(fns[t].frame or 0 for t in cycle)
            # The innermost round still calls what the cycle's functions call besides each
            # other (a number's vsnprintf at the bottom of a JSON dump): the deepest of those
            # exits, with any other cycle below it taken once (two cycles over one document's
            # nesting share its depth limit), goes below the last round; a call through a
            # pointer reaches the targets listed for it, as at any level.
            exit_flat, exit_path, exit_unb, exit_lib = 0, [], set(), set()
            start = on_keys.index(key)
            for i, t in enumerate(cycle):
                pred = cycle[i - 1] if i else (on_path[start - 1] if start else None)
                exits = targets_of(fns[t], pred, exit_unb) - set(on_path)
                on_path.append(t)  # the exit's caller, for a call listed per caller
                on_keys.append(("exit", t))
                for c in sorted(exits):
                    b = visit(c)
                    exit_unb |= b.unbounded
                    exit_lib |= b.library
                    if b.flat > exit_flat:
                        exit_flat, exit_path = b.flat, b.flat_path
                on_path.pop()
                on_keys.pop()
            rounds = per_round * (int(depth) - 1)
            return Bound(
                rounds + exit_flat,
                [f"{fn.name} (x{depth})"] + exit_path,
                exit_unb,
                exit_lib,
                flat=exit_flat,
                flat_path=exit_path,
            )
        on_path.append(title)
        on_keys.append(key)
        best = Bound(0, [], set(), set())
        unb: set = set()
        lib: set = set()
        if fn.qualifier != "static" and "bounded" not in fn.qualifier:
            unb.add(f"dynamic frame in {fn.name}")
        targets = targets_of(fn, caller, unb)
        to_call, call_path = None, []
        flat, flat_path = 0, []
        for t in sorted(targets):
            b = visit(t)
            unb |= b.unbounded
            lib |= b.library
            if b.flat > flat:
                flat, flat_path = b.flat, b.flat_path
            if b.bytes > best.bytes or not best.path:
                best = b
            if b.to_call is not None and (to_call is None or b.to_call > to_call):
                to_call, call_path = b.to_call, b.call_path
        on_path.pop()
        on_keys.pop()
        step = f"{fn.name} ({fn.frame}, {fn.origin})" if fn.origin else f"{fn.name} ({fn.frame})"
        res = Bound(
            fn.frame + best.bytes,
            [step] + best.path,
            unb,
            lib,
            None if to_call is None else fn.frame + to_call,
            [step] + call_path if to_call is not None else [],
            flat=fn.frame + flat,
            flat_path=[step] + flat_path,
        )
        memo[key] = res
        return res

    return visit(entry.title)


def _row(thread, what, entry, b: Bound, key, budget, verdict, **extra) -> dict:
    return {
        "thread": thread,
        "what": what,
        "entry": entry,
        "worst_bytes": b.bytes,
        "budget_key": key,
        "budget_bytes": budget,
        "verdict": verdict,
        "lower_bound": bool(b.unbounded),
        "unbounded": sorted(b.unbounded)[:20],
        "unbounded_count": len(b.unbounded),
        "port_calls": len(b.library),
        "port_functions": sorted(b.library),
        "library_frames": sum(1 for step in b.path if re.search(r"\(\d+, lib[^,)]*\.a[,)]", step)),
        "deepest_path": b.path,
        **extra,
    }


def _verdict(b: Bound, budget) -> str:
    if budget is None:
        return "no budget"
    if b.bytes > budget:
        return "EXCEEDS"
    # a figure that leaves a call unbounded proves nothing about the budget
    return "within" if not b.unbounded else "LOWER BOUND"


def check(board_name: str, build_dir: Path = MCU_BUILD_DIR, port: bool = True) -> dict:
    """Every thread's bound against the board's budgets; `port=False` counts the port's
    functions as zero instead of their board figures (what the check did before the
    figures existed)."""
    from k32.boards import ROLES, load_board

    board = load_board(board_name)
    notes = yaml.safe_load(ANNOTATIONS.read_text()) or {}
    fns = load_graph(build_dir)
    for sym in notes.get("ends_program") or []:
        if sym.endswith("*"):
            if not any(f.frame is not None and f.name.startswith(sym[:-1]) for f in fns.values()):
                raise StackError(f"{ANNOTATIONS.name}: ends_program {sym!r} matches no function")
        elif fns.library is not None and fns.library.lookup(sym) is None and not (sym in fns and fns[sym].frame):
            raise StackError(f"{ANNOTATIONS.name}: ends_program {sym!r}: no archive of the link defines it")
    stated_frames(fns, notes)
    if port and any(f.origin == "port" for f in fns.values()):
        port_figures.apply(fns, port_figures.load(port_figures.FIGURES))
    elif not port:
        for f in fns.values():
            if f.origin == "port":
                f.frame, f.qualifier, f.origin = 0, "static", "port, not counted"
    resolved = indirect_targets(fns, notes)
    budgets = {k: v["bytes"] for k, v in board.budgets.items() if isinstance(v, dict) and "bytes" in v}
    rows = []
    # The in-process call and one hop of a chain, checked once; the threads that start calls
    # build on both.
    spec = notes.get("inproc")
    call = hop = None
    chain_len = 1
    if spec:
        entry = _find(fns, spec["call"])
        if len(entry) != 1:
            raise StackError(f"{ANNOTATIONS.name}: inproc call {spec['call']!r} matches {len(entry)} functions")
        call = worst(fns, entry[0], notes, resolved)
        chain_len = _depth(spec["chain"])
        key = "inproc_call_stack"
        rows.append(
            _row(
                "pod-call",
                "an in-process call into a pod, from the free-stack check down "
                "(the pod's wasm::call/execute, its imports; a further call is cut there)",
                entry[0].name,
                call,
                key,
                budgets.get(key),
                _verdict(call, budgets.get(key)),
            )
        )
        if call.to_call is not None:
            hop = Bound(call.to_call, call.call_path, set(call.unbounded), set(call.library))
            key = "inproc_hop_stack"
            rows.append(
                _row(
                    "inproc-hop",
                    "one hop of an in-process chain: a pod calling a pod, from one free-stack check to the next",
                    entry[0].name,
                    hop,
                    key,
                    budgets.get(key),
                    _verdict(hop, budgets.get(key)),
                )
            )
    for thread, spec_t in (notes.get("threads") or {}).items():
        found = _find(fns, spec_t["entry"])
        if len(found) != 1:
            raise StackError(
                f"{ANNOTATIONS.name}: thread {thread}: entry {spec_t['entry']!r} matches "
                f"{len(found)} functions in {build_dir}"
            )
        inner = worst(fns, found[0], notes, resolved)
        b = Bound(
            inner.bytes,
            list(inner.path),
            set(inner.unbounded),
            set(inner.library),
            inner.to_call,
            list(inner.call_path),
        )  # memo stays intact
        hops = []
        for step in spec_t.get("via") or []:
            hop_fn = _find(fns, step)
            if len(hop_fn) != 1:
                raise StackError(f"{ANNOTATIONS.name}: thread {thread}: via {step!r} matches {len(hop_fn)} functions")
            b.bytes += hop_fn[0].frame
            if b.to_call is not None:
                b.to_call += hop_fn[0].frame
            hops.append(f"{hop_fn[0].name} ({hop_fn[0].frame})")
        b.path = hops + b.path
        key = spec_t.get("budget")
        budget = budgets[key] if key else None
        role = spec_t.get("role")
        if role is not None and role not in ROLES:
            raise StackError(f"{ANNOTATIONS.name}: thread {thread}: role {role!r} is not one of {', '.join(ROLES)}")
        extra = {"own_bytes": b.bytes}
        mode = spec_t.get("inproc")
        if mode not in (None, "chain"):
            raise StackError(f"{ANNOTATIONS.name}: thread {thread}: inproc {mode!r} is not 'chain'")
        if mode == "chain" and budget is not None:
            if call is None or hop is None:
                raise StackError(f"{ANNOTATIONS.name}: thread {thread}: inproc: chain needs the inproc section")
            if b.to_call is None:
                raise StackError(
                    f"{ANNOTATIONS.name}: thread {thread}: marked inproc: chain but reaches no in-process call"
                )
            # A control plane runs a chain of pods on this thread (the node gives it its own
            # budget + a chain's stack); a worker keeps one call's room and refuses deeper calls.
            hops_n = chain_len - 1 if "control-plane" in board.roles else 0
            total = max(b.bytes, b.to_call + hops_n * hop.bytes + call.bytes)
            budget = budget + budgets["inproc_call_stack"] + hops_n * budgets["inproc_hop_stack"]
            extra.update(
                {
                    "to_first_call_bytes": b.to_call,
                    "hops": hops_n,
                    "hop_bytes": hop.bytes,
                    "call_bytes": call.bytes,
                    "budget_key": f"{key} + inproc_call_stack" + (f" + {hops_n} x inproc_hop_stack" if hops_n else ""),
                }
            )
            if total > b.bytes:
                b.path = hops + list(b.call_path) + [f"+ {hops_n} hops x {hop.bytes} + one call {call.bytes}"]
            b.bytes = total
            b.unbounded |= call.unbounded
            b.library |= call.library
        if role is not None and role not in board.roles:
            # The node refuses that role on this board (K32_BOARD_CONTROL_PLANE), so the
            # thread never starts there: its figure is shown, not held against the budget.
            verdict = f"not run ({role} only)"
        else:
            verdict = _verdict(b, budget)
        row = _row(thread, spec_t.get("what", ""), found[0].name, b, key, budget, verdict, **extra)
        if "budget_key" in extra:
            row["budget_key"] = extra["budget_key"]
        rows.append(row)
    return {
        "board": board.name,
        "build_dir": str(build_dir),
        "port_figures": bool(port),
        "threads": rows,
        "ok": all(r["verdict"] not in ("EXCEEDS", "LOWER BOUND") for r in rows),
    }
