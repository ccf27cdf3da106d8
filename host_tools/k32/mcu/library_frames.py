"""Stack frames of the library code the Cortex-M4 link pulls in (newlib, libstdc++, libgcc),
read from the archives themselves: GCC writes no frame sizes for them, so without this a
call into vsnprintf or std::string counts as zero bytes.

Each function of an archive is disassembled (`objdump -drtw`) and followed instruction by
instruction along its branches, tracking how far the stack pointer is below its value at
entry: push/stmdb sp!, vpush/vstmdb sp!, `sub sp, #N` (and .w/subw) lower it, pop, vpop and
`add sp, #N` raise it; the deepest point is the function's frame. Branches are followed
to their targets (a tbb/tbh to every entry of its table, a `bl` into the same function as a
subroutine). Calls are the `bl`/`blx` to a symbol and the `b.w` tail calls, from the
relocations. A stack pointer lowered by a
register (`sub sp, rX`: alloca or a variable-length array) is a dynamic frame, and a `blx rX`
or `bx rX` an indirect call: both leave the figure unbounded unless firmware/stack_check.yaml
bounds them, as for the project's own code.

Which archives: the ones the build's link command names, for the multilib its flags select
(`g++ <flags> -###` prints the linker command line). The analysis of an archive is kept in
build/stack_library, keyed by the archive's path, size and time, so a check reads each
archive once."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from k32 import REPO_ROOT

TOOLCHAIN_FILE = REPO_ROOT / "firmware" / "cmake" / "toolchains" / "cortex-m4.cmake"
# shared by every build folder: an entry is keyed by its archive's path, size and time
CACHE_DIR = REPO_ROOT / "build" / "stack_library"
_CACHE_VERSION = 7
_COND = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"}
_SYM = re.compile(r"^([0-9a-f]{8}) (.{7}) (\S+)\t([0-9a-f]{8}) (.*)$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)(?:\t(.*))?$")
_MEMBER = re.compile(r"^(\S.*):\s+file format ")
_SECTION = re.compile(r"^Disassembly of section (\S+):$")
_RELOC = re.compile(r"\b[0-9a-f]+: (R_ARM_\w+)\t(\S+)")
# how often an instruction is reached again at a deeper stack before the function counts as
# lowering the stack pointer in a loop (a dynamic frame)
_MAX_VISITS = 16


class LibraryError(RuntimeError):
    pass


@dataclass
class LibFn:
    """One function of an archive: its frame, the symbols it calls (`global:` names are
    resolved across the link's archives, others are keys in the same archive), and what
    leaves it unbounded."""

    key: str
    name: str
    frame: int = 0
    calls: list = field(default_factory=list)
    indirect: bool = False
    dynamic: str = ""  # why the frame is not fixed ("sub sp, sp, r3 at 0x4c")


def _objdump() -> str:
    tool = shutil.which("arm-none-eabi-objdump")
    if not tool:
        raise LibraryError("arm-none-eabi-objdump not found (install the Debian package binutils-arm-none-eabi)")
    return tool


# --- which archives -----------------------------------------------------------------------


def _cache_var(build_dir: Path, name: str) -> str | None:
    cache = Path(build_dir) / "CMakeCache.txt"
    if not cache.is_file():
        return None
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith(name + ":") or line.startswith(name + "="):
            return line.split("=", 1)[1]
    return None


def _link_flags(build_dir: Path) -> tuple[str, list[str]]:
    """The C++ driver and the flags the build links with: from its CMake cache, or (a build
    folder that is not a CMake tree, as in tests) the toolchain file's defaults."""
    compiler = "arm-none-eabi-g++"
    for f in sorted((Path(build_dir) / "CMakeFiles").glob("*/CMakeCXXCompiler.cmake")):
        m = re.search(r'set\(CMAKE_CXX_COMPILER "([^"]+)"\)', f.read_text(errors="replace"))
        if m:
            compiler = m.group(1)
    cxx, ld = _cache_var(build_dir, "CMAKE_CXX_FLAGS"), _cache_var(build_dir, "CMAKE_EXE_LINKER_FLAGS")
    if cxx is None or ld is None:
        text = TOOLCHAIN_FILE.read_text()
        cpu = re.search(r'set\(K32_MCU_CPU "([^"]*)"\)', text).group(1)
        ld_init = re.search(r'set\(CMAKE_EXE_LINKER_FLAGS_INIT "([^"]*)"\)', text).group(1)
        cxx, ld = cpu, ld_init.replace("${K32_MCU_CPU}", cpu)
    return compiler, shlex.split(cxx) + shlex.split(ld)


def link_archives(build_dir: Path) -> list[Path]:
    """The archives of the link, in the linker's search order: its -l libraries looked up in
    its -L folders (the multilib the flags select), as `g++ -###` reports them."""
    compiler, flags = _link_flags(build_dir)
    if not shutil.which(compiler):
        raise LibraryError(f"{compiler} not found: the library frames come from its archives")
    flags = [f for f in flags if f != "-include" and not f.endswith(".h")]
    out = subprocess.run(
        [compiler, *flags, "-###", "-o", "/dev/null", "k32_link_probe.o"], capture_output=True, text=True
    ).stderr
    line = next((ln for ln in out.splitlines() if "collect2" in ln or ln.strip().startswith('"') and " -l" in ln), "")
    args = shlex.split(line)
    dirs = [a[2:] for a in args if a.startswith("-L")]
    libs: list[str] = []
    for a in args:
        name = a[len("-plugin-opt=-pass-through=") :] if a.startswith("-plugin-opt=-pass-through=") else a
        if name.startswith("-l") and name[2:] not in libs:
            libs.append(name[2:])
    if not libs:
        raise LibraryError(f"could not read the link's libraries from `{compiler} -###`")
    found = []
    for lib in libs:
        path = next((Path(d) / f"lib{lib}.a" for d in dirs if (Path(d) / f"lib{lib}.a").is_file()), None)
        if path is None:
            raise LibraryError(f"lib{lib}.a of the link is in none of its folders {dirs}")
        found.append(path.resolve())
    return found


# --- reading one archive ------------------------------------------------------------------


def _reglist(ops: str) -> tuple[int, int]:
    """(number of registers, bytes each) of a register list such as {r4, r5, lr} or {d8-d15}."""
    m = re.search(r"\{([^}]*)\}", ops)
    if not m:
        return 0, 4
    n, size = 0, 4
    for part in m.group(1).split(","):
        part = part.strip()
        if part.startswith("d"):
            size = 8
        r = re.match(r"^[a-z]+(\d+)-[a-z]+(\d+)$", part)
        n += int(r.group(2)) - int(r.group(1)) + 1 if r else 1
    return n, size


def _imm(op: str) -> int | None:
    m = re.match(r"^#(-?(?:0x[0-9a-f]+|\d+))$", op.strip())
    return int(m.group(1), 0) if m else None


def _split(ops: str) -> list[str]:
    """Operands of an instruction, split at top-level commas ({…} and […] kept whole)."""
    out, depth, cur = [], 0, ""
    for ch in ops:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _base(mnem: str) -> tuple[str, bool]:
    """The mnemonic without its width suffix, and whether it carries a condition (in an IT
    block: popeq, bxne, addeq)."""
    m = mnem.split(".")[0]
    if m in ("bl", "blx", "bx", "b", "bls", "blt", "ble") or len(m) < 3:
        return (m, False) if m not in ("bls", "blt", "ble") else ("b", True)
    if m[-2:] in _COND and m[:-2] in (
        "b",
        "bl",
        "blx",
        "bx",
        "pop",
        "push",
        "ldr",
        "add",
        "sub",
        "mov",
        "ldmia",
        "ldm",
    ):
        return m[:-2], True
    return m, False


def _target(ops: str) -> int | None:
    m = re.search(r"(?:^|, )([0-9a-f]+) <", ops)
    return int(m.group(1), 16) if m else None


def _analyze(fn: LibFn, insns: list, table: dict, resolve) -> None:
    """Follow fn's instructions from its entry along every branch, tracking the stack depth;
    record the deepest point, its calls and anything that leaves the frame unbounded."""
    at = {a: i for i, (a, *_rest) in enumerate(insns)}
    seen: dict[int, int] = {}
    visits: dict[int, int] = {}
    fp: dict[str, int] = {}  # a register holding the stack pointer (mov r7, sp): its depth
    work = [(0, 0)]
    calls: set = set()
    lo, hi = insns[0][0], insns[-1][0]

    def call(addr: int, ops: str, reloc: str | None):
        key = resolve(reloc, _target(ops), lo, hi)
        if key is not None:
            calls.add(key)

    while work:
        i, d = work.pop()
        while i < len(insns):
            addr, mnem, ops, reloc = insns[i]
            if seen.get(addr, -1) >= d:
                break
            seen[addr] = d
            visits[addr] = visits.get(addr, 0) + 1
            if visits[addr] > _MAX_VISITS:
                fn.dynamic = fn.dynamic or f"the stack pointer keeps falling in a loop at {addr:#x}"
                break
            fn.frame = max(fn.frame, d)
            if mnem.startswith("."):  # data in the code (a literal pool, a jump table)
                break
            base, cond = _base(mnem)
            o = _split(ops)
            nxt = i + 1
            if base in ("push", "stmdb", "stmfd", "vpush", "vstmdb") and (
                base in ("push", "vpush") or (o and o[0] == "sp!")
            ):
                n, size = _reglist(ops)
                d += n * size
            elif base in ("pop", "ldmia", "ldm", "ldmfd", "vpop", "vldmia") and (
                base in ("pop", "vpop") or (o and o[0] == "sp!")
            ):
                n, size = _reglist(ops)
                if re.search(r"\bpc\b", ops):
                    if cond:
                        i = nxt
                        continue
                    break  # a return
                if not cond:
                    d -= n * size
            elif base in ("str", "strd", "vstr") and o and o[-1].startswith("[sp, #-") and o[-1].endswith("]!"):
                d += -(_imm(o[-1][4:-2]) or 0)
            elif base in ("ldr", "ldrd") and len(o) >= 3 and o[-2] == "[sp]" and _imm(o[-1]) is not None:
                if o[0] == "pc":
                    if cond:
                        i = nxt
                        continue
                    break
                d -= _imm(o[-1])
            elif (
                o
                and o[0] == "sp"
                and not base.startswith(("str", "stm", "vst", "ldm", "vld", "cmp", "cmn", "tst", "teq", "pld"))
            ):
                imm = _imm(o[-1]) if len(o) >= 2 else None
                if base in ("sub", "subw", "subs") and imm is not None and (len(o) == 2 or o[1] == "sp"):
                    d += imm
                elif base in ("add", "addw", "adds") and imm is not None and (len(o) == 2 or o[1] == "sp"):
                    if not cond:
                        d -= imm
                elif base == "mov" and len(o) == 2 and o[1] in fp:
                    d = fp[o[1]]
                elif base in ("add", "addw") and len(o) == 3 and o[1] in fp and _imm(o[2]) is not None:
                    d = fp[o[1]] - _imm(o[2])
                else:
                    fn.dynamic = fn.dynamic or f"{mnem} {ops} at {addr:#x}"
            elif base == "mov" and len(o) == 2 and o[1] == "sp":
                fp[o[0]] = d
            elif base in ("add", "addw") and len(o) == 3 and o[1] == "sp" and _imm(o[2]) is not None:
                fp[o[0]] = d - _imm(o[2])
            elif base in ("bl", "blx"):
                t = _target(ops)
                if reloc is None and t is not None and lo < t <= hi and t in at:
                    # a subroutine inside this function (hand-written libgcc): its pushes
                    # are followed from here, at this depth, like a branch that returns (a call
                    # to the function's own start is a recursion: an edge, as any call)
                    work.append((at[t], d))
                elif reloc or t is not None:
                    call(addr, ops, reloc)
                else:  # blx rX
                    fn.indirect = True
            elif base == "bx":
                if ops.strip() != "lr":
                    fn.indirect = True  # a tail call through a register
                if not cond:
                    break
            elif base in ("b", "cbz", "cbnz"):
                t = _target(ops)
                inside = reloc is None and t is not None and lo <= t <= hi and t in at
                if not inside:
                    call(addr, ops, reloc)  # a tail call
                elif base == "b" and not cond:
                    nxt = at[t]
                else:
                    work.append((at[t], d))
                if base == "b" and not cond and not inside:
                    break
            elif base in ("tbb", "tbh"):
                for t in table.get(addr, []):
                    if t in at:
                        work.append((at[t], d))
                break
            elif o and o[0] == "pc":  # ldr pc / mov pc / add pc: a jump we cannot follow
                if base == "mov" and o[-1] == "lr":
                    break
                fn.indirect = True
                break
            i = nxt
    fn.calls = sorted(calls)


def _jump_tables(insns: list) -> dict[int, list[int]]:
    """The targets of each tbb/tbh, read from the table the disassembler prints as data after it."""
    out = {}
    for i, (addr, mnem, _ops, _r) in enumerate(insns):
        if mnem not in ("tbb", "tbh"):
            continue
        raw = b""
        for _a2, m2, o2, _ in insns[i + 1 :]:
            if not m2.startswith("."):
                break
            size = {".word": 4, ".short": 2, ".byte": 1}.get(m2)
            if size is None:
                break
            raw += int(o2.split()[0], 16).to_bytes(size, "little")
        step = 1 if mnem == "tbb" else 2
        entries = [int.from_bytes(raw[k : k + step], "little") for k in range(0, len(raw) - step + 1, step)]
        out[addr] = [addr + 4 + 2 * e for e in entries]
    return out


def read_archive(archive: Path) -> dict:
    """Every function of one archive: {"fns": {key: LibFn fields}, "globals": {symbol: key}}."""
    text = subprocess.run(
        [_objdump(), "-drtw", "--no-show-raw-insn", str(archive)], capture_output=True, text=True, check=True
    ).stdout
    fns: dict[str, LibFn] = {}
    globals_: dict[str, str] = {}
    locals_: dict[str, str] = {}
    member = None
    members: list = []  # (member, symbols {section: [(addr, size, name, global)]}, code {section: insns})
    section = None
    for line in text.splitlines():
        m = _MEMBER.match(line)
        if m:
            member = f"{archive.name}({m.group(1)}#{len(members)})"
            members.append((member, {}, {}))
            section = None
            continue
        if member is None:
            continue
        m = _SYM.match(line)
        if m:
            flags, sec, size = m.group(2), m.group(3), int(m.group(4), 16)
            name = re.sub(r"^\.(hidden|protected|internal) ", "", m.group(5))
            is_global = flags[0] in "gu" or flags[1] == "w"
            if sec.startswith(".text") and (flags[6] == "F" or is_global):
                members[-1][1].setdefault(sec, []).append((int(m.group(1), 16) & ~1, size, name, is_global))
            continue
        m = _SECTION.match(line)
        if m:
            section = m.group(1)
            members[-1][2].setdefault(section, [])
            continue
        m = _INSN.match(line)
        if m and section is not None:
            rest = (m.group(3) or "").split("\t")
            ops = rest[0] if rest and "R_ARM_" not in rest[0] else ""
            r = _RELOC.search(line)
            reloc = (
                r.group(2)
                if r
                and r.group(1)
                in ("R_ARM_THM_CALL", "R_ARM_THM_JUMP24", "R_ARM_THM_JUMP19", "R_ARM_THM_JUMP11", "R_ARM_THM_JUMP8")
                else None
            )
            members[-1][2][section].append((int(m.group(1), 16), m.group(2), ops, reloc))
    for member, syms, code in members:
        local: dict[str, str] = {}
        public: set = set()
        spans: dict[str, list] = {}
        for sec, entries in syms.items():
            starts = sorted({a for a, *_ in entries})
            for addr, size, name, is_global in sorted(entries):
                key = f"{member}:{sec}:{addr:x}"
                local.setdefault(name, key)
                locals_.setdefault(name, key)
                if is_global:
                    globals_.setdefault(name, key)
                    public.add(name)
                if key not in fns:
                    later = [s for s in starts if s > addr]
                    end = addr + size if size else (later[0] if later else 1 << 30)
                    fns[key] = LibFn(key, name)
                    spans.setdefault(sec, []).append((addr, end, key))

        for sec, ranges in spans.items():
            insns_all = code.get(sec, [])
            table = _jump_tables(insns_all)

            def resolve(sym, target, lo, hi, _ranges=ranges, local=local, public=public):
                if sym and (sym in public or sym not in local) and not sym.startswith("."):
                    return "global:" + sym  # named as the graph names it (the linker may pick another archive's)
                if sym and sym in local:
                    return local[sym]
                if target is not None:  # within this section: the function holding the target
                    return next((k for a, e, k in _ranges if a <= target < e), None)
                return None

            for addr, end, key in ranges:
                insns = [x for x in insns_all if addr <= x[0] < end]
                if insns:
                    _analyze(fns[key], insns, table, resolve)
    return {"fns": {k: vars(f) for k, f in fns.items()}, "globals": globals_, "locals": locals_}


_LOADED: dict[str, dict] = {}


def load_archive(archive: Path, cache_dir: Path | None) -> dict:
    """read_archive, kept in cache_dir between runs (keyed by the archive's path, size, time)."""
    st = archive.stat()
    tag = hashlib.sha1(f"{_CACHE_VERSION}:{archive}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]
    if tag in _LOADED:
        return _LOADED[tag]
    path = Path(cache_dir) / f"{archive.name}-{tag}.json" if cache_dir else None
    if path is not None and path.is_file():
        try:
            _LOADED[tag] = json.loads(path.read_text())
            return _LOADED[tag]
        except ValueError:
            pass
    data = _LOADED[tag] = read_archive(archive)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")  # checks run side by side (pytest -n)
        tmp.write_text(json.dumps(data))
        tmp.replace(path)
    return data


class Library:
    """The link's archives, searched as the linker does: the first archive that defines a
    global symbol provides it."""

    def __init__(self, archives: list[Path], cache_dir: Path | None = None):
        self.archives = [Path(a) for a in archives]
        self._data = [(a.name, load_archive(a, cache_dir)) for a in self.archives]

    def lookup(self, symbol: str) -> str | None:
        for _name, data in self._data:
            if symbol in data["globals"]:
                return data["globals"][symbol]
        return None

    def find(self, symbol: str) -> str | None:
        """A global symbol, or else a file-local one of that name (stdio's lflush): the
        first archive's."""
        found = self.lookup(symbol)
        for _name, data in self._data:
            found = found or data["locals"].get(symbol)
        return found

    def fn(self, key: str) -> LibFn:
        for _name, data in self._data:
            if key in data["fns"]:
                return LibFn(**data["fns"][key])
        raise KeyError(key)

    def archive_of(self, key: str) -> str:
        return key.split("(", 1)[0]
