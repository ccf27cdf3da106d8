"""`k32 check port-stacks --idf DIR`: the worst-case stack of every function of the ESP32 port
(firmware/port/esp32, firmware/port/tls_mbedtls) with ESP-IDF below it, written to
firmware/port/esp32/stack_figures.yaml for `k32 check stacks` (port_figures.py).

The port and the ESP-IDF components it can reach are compiled as the board firmware is: ESP-IDF
configures the firmware for the ESP32-C3 (idf_check.configure: its sdkconfig, -Os, Debian's
RISC-V compiler for rv32imc), and each compile command runs again with -fstack-usage
-fcallgraph-info=su into a folder of its own. Their call graph is walked as `k32 check stacks`
walks the firmware's (stacks.worst): frames add up along the deepest path, a call through a
pointer reaches the targets firmware/port/esp32/stack_check_idf.yaml lists for it, a
recursion the depth it names. The C library's functions (newlib's, ROM or not on the chip)
take the frames of Debian's Cortex-M4 newlib, read from its archives as for the firmware's own
code; the run-time helpers the compiler calls (64-bit division) come from each object's
relocations. A call the walk cannot bound (a pointer no entry lists, a function no compiled
component or archive defines) is written with the function's figure as `unbounded`: the check
then treats the figure as a lower bound.

The table records the ESP-IDF, lwIP, mbedTLS and esp_littlefs versions of the checkout, the
command that made it and the SHA-256 of the port sources it was made from."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from k32 import REPO_ROOT

from . import port_figures, stacks
from .library_frames import CACHE_DIR, Library, link_archives

NOTES = REPO_ROOT / "firmware" / "port" / "esp32" / "stack_check_idf.yaml"
PORT_DIRS = ("firmware/port/esp32/", "firmware/port/tls_mbedtls/", "firmware/port/posix/")
OBJDUMP = "riscv64-unknown-elf-objdump"
_RELOC_CALL = re.compile(r"^[0-9a-f]+ R_RISCV_(?:CALL|CALL_PLT|JAL)\s+(\S+?)(?:\+0x[0-9a-f]+)?$")
PATH_STEPS = 14  # steps of each deepest path kept in the table (what -v shows)


class FramesError(RuntimeError):
    pass


def _component(entry: dict, idf: Path, littlefs: Path) -> str | None:
    f = entry["file"]
    if any(str(REPO_ROOT / d) in f for d in PORT_DIRS):
        return "port"
    comps = str(idf / "components") + "/"
    if f.startswith(comps):
        return f[len(comps) :].split("/", 1)[0]
    if f.startswith(str(littlefs) + "/"):
        return littlefs.name
    return None


def compile_for_frames(build_dir: Path, env: dict, components: list[str], idf: Path, littlefs: Path, jobs: int, echo):
    """Run the compile commands of the port and the listed components again with frame and
    call-graph output into build_dir/frames; returns (.ci files, sources that failed)."""
    db = json.loads((build_dir / "compile_commands.json").read_text())
    picked = [e for e in db if e["file"].endswith((".c", ".cpp")) and _component(e, idf, littlefs) in components]
    out_dir = build_dir / "frames"
    out_dir.mkdir(exist_ok=True)
    # Espressif's newlib declares DIR and struct dirent in <sys/dirent.h>; Debian's has them
    # elsewhere, and ESP-IDF's own header declares them only for clang. This build folder's
    # shim takes ESP-IDF's declarations (mbedTLS's x509_crt.c reads certificate folders).
    shim = build_dir / "frames-include"
    (shim / "sys").mkdir(parents=True, exist_ok=True)
    (shim / "sys" / "dirent.h").write_text(
        "#pragma once\n#ifndef __clang__\n#define __clang__ 1\n#define K32_SHIM_CLANG\n#endif\n"
        f'#include "{idf}/components/newlib/platform_include/sys/dirent.h"\n'
        "#ifdef K32_SHIM_CLANG\n#undef __clang__\n#undef K32_SHIM_CLANG\n#endif\n"
    )

    # the configuration every source includes: a change recompiles everything
    config = build_dir / "config" / "sdkconfig.h"
    config_tag = hashlib.sha256(config.read_bytes()).hexdigest() if config.is_file() else ""

    def one(e: dict):
        argv = shlex.split(e["command"])
        obj = out_dir / (e["file"].lstrip("/").replace("/", "_") + ".o")
        argv[argv.index("-o") + 1] = str(obj)
        # the figures, not the warnings, are the point here (-Werror stays the firmware build's)
        argv = [a for a in argv if not a.startswith(("-Werror", "-fdiagnostics-color"))]
        argv = argv[:1] + ["-I", str(shim)] + argv[1:] + ["-fstack-usage", "-fcallgraph-info=su"]
        if e["file"].endswith(".c"):
            # ESP-IDF's C sources use C11's static_assert, which Espressif's newlib <assert.h>
            # always defines and Debian's only for some standards; its macros need GNU C's
            # variadic comma rule where a library asks for plain C99 (mbedTLS)
            argv = [a if a != "-std=c99" else "-std=gnu99" for a in argv] + ["-Dstatic_assert=_Static_assert"]
        # Espressif's newlib is built with retargetable locks (ESP-IDF's _lock_t), UNIX98
        # mutex attributes and the small reentrancy structure; Debian's headers need to be told
        argv += ["-D_RETARGETABLE_LOCKING", "-D_UNIX98_THREAD_MUTEX_ATTRIBUTES", "-D_REENT_SMALL"]
        ci, cmd = obj.with_suffix(".ci"), obj.with_suffix(".cmd")
        src = Path(e["file"])
        line = shlex.join(argv) + f"\n{config_tag}"
        fresh = (
            ci.is_file()
            and obj.is_file()
            and ci.stat().st_mtime > src.stat().st_mtime
            and cmd.is_file()
            and cmd.read_text() == line  # same flags and configuration as last time
        )
        if fresh and not e["file"].startswith(str(REPO_ROOT)):
            return ci, None  # an ESP-IDF source already analysed (the checkout does not change under us)
        proc = subprocess.run(argv, cwd=e["directory"], env=env, capture_output=True, text=True, errors="replace")
        if proc.returncode != 0:
            ci.unlink(missing_ok=True)  # GCC may leave a partial graph of a failed compile
            return None, e["file"]
        cmd.write_text(line)
        return ci, None

    echo(f"compiling {len(picked)} sources ({', '.join(components)}) with -fstack-usage -fcallgraph-info ...")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, picked))
    return [c for c, _ in results if c], [f for _, f in results if f]


def _objdump(objs: list[Path], flag: str):
    """objdump `flag` output of the objects, in batches: (object, line) pairs."""
    tool = shutil.which(OBJDUMP)
    if not tool:
        raise FramesError(f"{OBJDUMP} not found (Debian's binutils-riscv64-unknown-elf)")
    for start in range(0, len(objs), 200):
        out = subprocess.run([tool, flag, *map(str, objs[start : start + 200])], capture_output=True, text=True)
        obj = None
        for line in out.stdout.splitlines():
            if line.endswith("file format elf32-littleriscv"):
                obj = line.split(":")[0]
                continue
            yield obj, line


_SYMBOL = re.compile(r"^[0-9a-f]+ (.)([w ])[C ][W ][Ii ][dD ]F (\S+)\t[0-9a-f]+ (?:\.hidden )?(\S+)$")
_RELOC_FOR = re.compile(r"^RELOCATION RECORDS FOR \[(\S+)\]:$")


def _sections(defined) -> dict[str, dict[str, str]]:
    """Per object, each code section's function (its title in the graph): with
    -ffunction-sections every function has its own section, .text.NAME or, for code ESP-IDF
    places in IRAM, .iram1.N. A second symbol in the same section is an alias
    (esp_timer_get_time of esp_timer_impl_get_time): it joins the graph as a zero-byte step
    to the function it names."""
    objs = [f.with_suffix(".o") for f in defined if f.with_suffix(".o").is_file()]
    by_obj = {str(f.with_suffix(".o")): titles for f, titles in defined.items()}
    owner: dict[str, dict[str, str]] = {}
    named: dict[str, list] = {}
    for obj, line in _objdump(objs, "-tw"):
        m = _SYMBOL.match(line)
        if m and obj in by_obj:
            named.setdefault(obj, []).append((m.group(3), m.group(4), m.group(1) == "l", m.group(2) == "w"))
    for obj, syms in named.items():
        titles = by_obj[obj]
        sec_owner = owner.setdefault(obj, {})
        for sec, sym, _local, _weak in syms:
            if sym in titles:
                sec_owner.setdefault(sec, titles[sym])
    return owner, named


def _add_compiler_calls(fns, defined) -> None:
    """Calls the compiler adds below its call graph (64-bit division, block copies), from
    each object's relocations: an edge of the function whose section makes it. Aliases
    become steps to the function they name; where a weak alias and a strong one share a
    name (newlib's _open_r: syscalls.c's weak stub that only fails, the VFS's esp_vfs_open),
    the linker takes the strong one, and so does the graph."""
    owner, named = _sections(defined)
    ours = {sym for titles in defined.values() for sym in titles}
    by_symbol = {str(f.with_suffix(".o")): set(titles) for f, titles in defined.items()}
    every = [(obj, *entry) for obj, syms in named.items() for entry in syms]
    for obj, sec, sym, local, _weak in sorted(every, key=lambda e: e[4]):  # strong ones first
        title = owner.get(obj, {}).get(sec)
        if title is None or sym in by_symbol.get(obj, ()):
            continue
        # a file-local alias (GCC folding identical functions) is named as its file's
        # functions are: "path:symbol"
        alias = f"{title.rsplit(':', 1)[0]}:{sym}" if local and ":" in title else sym
        if alias in fns and fns[alias].frame is not None:
            continue
        fn = fns.setdefault(alias, stacks.Fn(alias, sym))
        fn.frame, fn.qualifier, fn.calls = 0, "static", {title}
    local_names = {obj: {sym for _sec, sym, local, _weak in syms if local} for obj, syms in named.items()}
    objs = [f.with_suffix(".o") for f in defined if f.with_suffix(".o").is_file()]
    caller = None
    for obj, line in _objdump(objs, "-rw"):
        m = _RELOC_FOR.match(line)
        if m:
            caller = owner.get(obj, {}).get(m.group(1))
            continue
        m = _RELOC_CALL.match(line)
        if (
            m
            and caller is not None
            and m.group(1) not in ours
            and not m.group(1).startswith(".L")
            and m.group(1) not in local_names.get(obj, ())  # the graph has that call already
        ):
            fns[caller].calls.add(m.group(1))
            fns.setdefault(m.group(1), stacks.Fn(m.group(1), m.group(1)))


def _versions(idf: Path, littlefs: Path) -> dict:
    def grab(path: Path, pattern: str) -> str:
        try:
            m = re.search(pattern, path.read_text(errors="replace"), re.M)
        except OSError:
            return "unknown"
        return ".".join(m.groups()) if m else "unknown"

    v = {
        "esp-idf": grab(
            idf / "components/esp_common/include/esp_idf_version.h",
            r"ESP_IDF_VERSION_MAJOR\s+(\d+)[\s\S]*?ESP_IDF_VERSION_MINOR\s+(\d+)[\s\S]*?ESP_IDF_VERSION_PATCH\s+(\d+)",
        ),
        "lwip": grab(
            idf / "components/lwip/lwip/src/include/lwip/init.h",
            r"LWIP_VERSION_MAJOR\s+(\d+)[\s\S]*?LWIP_VERSION_MINOR\s+(\d+)[\s\S]*?LWIP_VERSION_REVISION\s+(\d+)",
        ),
        "mbedtls": grab(
            idf / "components/mbedtls/mbedtls/include/mbedtls/build_info.h", r'MBEDTLS_VERSION_STRING\s+"([^"]+)"'
        ),
        "esp_littlefs": grab(littlefs / "idf_component.yml", r'^version:\s*"?([^"\s]+)'),
    }
    lfs = grab(littlefs / "src/littlefs/lfs.h", r"#define LFS_VERSION\s+(0x[0-9a-fA-F]+)")
    v["littlefs"] = f"{int(lfs, 16) >> 16}.{int(lfs, 16) & 0xFFFF}" if lfs.startswith("0x") else lfs
    for name, path in (("esp-idf", idf), ("esp_littlefs", littlefs)):
        if not (path / ".git").exists():
            continue  # not a git checkout of its own (an archive): its version says it
        rev = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True)
        if rev.returncode == 0:
            v[name] += f" ({rev.stdout.strip()})"
    return v


def build_graph(ci_files: list[Path], mcu_build: Path, notes: dict):
    """The port's and ESP-IDF's call graph with the C library's frames below it."""
    fns, defined = stacks.read_call_graphs(ci_files)
    _add_compiler_calls(fns, defined)
    # the C library below ESP-IDF: newlib's frames, from the Cortex-M4 link's archives
    fns.library = Library(link_archives(mcu_build), CACHE_DIR)
    stacks.attach_library(fns, fns.library)
    for sym in notes.get("no_source") or {}:
        # Espressif's binary-only libraries (Wi-Fi) and the chip's ROM: no source, no
        # frame; counted as zero and named in the table beside each function reaching one
        if sym in fns and fns[sym].frame is not None:
            raise FramesError(f"{NOTES.name}: no_source {sym!r}: compiled from source here")
        fns.setdefault(sym, stacks.Fn(sym, sym))  # only its address may be taken (a handler)
        fns[sym].frame, fns[sym].qualifier, fns[sym].origin = 0, "static", "closed"
    return fns, defined


def _targets(fns, fn, resolved) -> set | None:
    """What fn's call through a pointer reaches, as listed for it (None: not listed)."""
    listed = next((v for k, v in resolved.items() if stacks._named(fn, k)), None)
    return None if listed is None or listed.any is None else set(listed.any)


def console_output(fns, resolved, spec: dict) -> None:
    """ESP-IDF's log prints to stdout, which is the console. Walked as any other call, its
    vprintf would reach every file system the VFS dispatches to (a log line's write landing
    in LittleFS or a socket), which no log line does. So the function that prints
    (`from`, its call through a pointer) gets its own copy of what `entry` runs, in which
    the VFS calls listed under `vfs` reach only the console's file system; the copy's other
    calls through pointers take the targets listed for them. `direct` names functions that
    write to the console by direct calls (the port's log line: fputs to stderr), each with
    the calls that get the console's copy."""
    src = next((f for f in fns.values() if f.frame is not None and f.name == spec["from"]), None)
    if src is None or stacks.INDIRECT not in src.calls or spec["entry"] not in fns:
        raise FramesError(f"{NOTES.name}: console: {spec['from']!r} calling {spec['entry']!r} not in the graph")
    restrict = {k: stacks._match_targets(fns, v, f"console {k}") for k, v in spec["vfs"].items()}
    copies: dict[str, str] = {}

    def copy(title: str) -> str:
        fn = fns.get(title)
        if fn is None or fn.frame is None or fn.origin == "closed":
            return title  # a leaf without a frame: the walk reports it as it is
        if title in copies:
            return copies[title]
        c = copies[title] = f"{title}@console"
        twin = stacks.Fn(c, fn.name, fn.frame, fn.qualifier, origin=fn.origin)
        fns[c] = twin
        calls = set(fn.calls)
        if stacks.INDIRECT in calls:
            calls.discard(stacks.INDIRECT)
            mine = next((v for k, v in restrict.items() if stacks._named(fn, k)), None)
            targets = mine if mine is not None else _targets(fns, fn, resolved)
            if targets is None:
                twin.calls.add(stacks.INDIRECT)  # unlisted: the walk reports it
                twin.indirect_sites = set(fn.indirect_sites)
            else:
                calls |= targets
        for t in calls:
            twin.calls.add(copy(t))
        return c

    src.calls = (src.calls - {stacks.INDIRECT}) | {copy(spec["entry"])}
    # the port's own log line writes to stderr, the console as well, by direct calls
    for name, callees in (spec.get("direct") or {}).items():
        fn = next((f for f in fns.values() if f.frame is not None and f.name == name), None)
        if fn is None:
            raise FramesError(f"{NOTES.name}: console: direct {name!r} not in the graph")
        for callee in callees:
            if callee not in fn.calls:
                raise FramesError(f"{NOTES.name}: console: {name!r} does not call {callee!r}")
            fn.calls = (fn.calls - {callee}) | {copy(callee)}


def calls_not_taken(fns, notes: dict) -> None:
    """`not_taken:` a direct call the firmware provably never makes (mbedtls_ssl_read's call
    of the handshake, which it makes only while the handshake has not finished). The edge
    leaves the walk only while the proof holds: the function must call each listed callee,
    and nothing but the `callers` named with the proof may call the function."""
    for name, spec in (notes.get("not_taken") or {}).items():
        fn = fns.get(name)
        if fn is None or fn.frame is None:
            raise FramesError(f"{NOTES.name}: not_taken {name!r}: no such function in the graph")
        if not isinstance(spec, dict) or not spec.get("calls") or not spec.get("callers"):
            raise FramesError(f"{NOTES.name}: not_taken {name!r}: give `calls` and `callers`")
        for callee in spec["calls"]:
            if callee not in fn.calls:
                raise FramesError(f"{NOTES.name}: not_taken {name!r} does not call {callee!r}")
        allowed = [re.compile(p) for p in spec["callers"]]
        for other in list(fns.values()):
            if name in other.calls and other.title != name and not any(p.search(other.name) for p in allowed):
                raise FramesError(
                    f"{NOTES.name}: not_taken {name!r}: called by {other.name!r}, which the proof does not cover"
                )
        if not any(name in f.calls and any(p.search(f.name) for p in allowed) for f in fns.values()):
            raise FramesError(f"{NOTES.name}: not_taken {name!r}: none of its callers {spec['callers']} calls it")
        fn.calls -= set(spec["calls"])


def figures(fns, notes: dict, port_symbols: dict[str, str]) -> dict:
    """Each port function's bound: {symbol: {name, bytes, path, unbounded}}."""
    stacks.stated_frames(fns, notes)
    calls_not_taken(fns, notes)
    resolved = stacks.indirect_targets(fns, notes)
    if notes.get("console"):
        console_output(fns, resolved, notes["console"])
    out = {}
    for sym, title in sorted(port_symbols.items()):
        b = stacks.worst(fns, fns[title], notes, resolved)
        entry = {"name": fns[title].name, "bytes": b.bytes, "path": b.path[:PATH_STEPS]}
        closed = sorted(b.library)
        if closed:
            entry["not_counted"] = closed
        if b.unbounded:
            entry["unbounded"] = sorted(b.unbounded)[:10]
        out[sym] = entry
    return out


def _local_paths_dropped(functions: dict, *roots: Path) -> dict:
    """The table names files relative to their checkout, not where this machine keeps it."""
    prefixes = [f"{Path(r).resolve()}/" for r in (*roots, REPO_ROOT)]

    def clean(text: str) -> str:
        for p in prefixes:
            text = text.replace(p, "")
        return text

    for entry in functions.values():
        for key in ("path", "unbounded"):
            if key in entry:
                entry[key] = [clean(x) for x in entry[key]]
    return functions


def generate(
    idf: Path | None,
    littlefs: Path | None,
    build_dir: Path,
    mcu_build: Path = stacks.MCU_BUILD_DIR,
    jobs: int = 2,
    out: Path = port_figures.FIGURES,
    echo=print,
) -> dict:
    from k32.build import idf_check

    build_dir = Path(build_dir).resolve()
    env = idf_check.configure("c3", idf, build_dir, littlefs, echo)
    idf = Path(env["IDF_PATH"])
    littlefs = idf_check._littlefs_dir(idf, littlefs)
    notes = yaml.safe_load(NOTES.read_text()) or {}
    components = ["port", *notes.get("components", [])]
    ci_files, failed = compile_for_frames(build_dir, env, components, idf, littlefs, jobs, echo)
    if failed:
        echo(f"{len(failed)} sources did not compile (their functions have no frames): " + ", ".join(failed))
    port_failed = [f for f in failed if any(d in f for d in PORT_DIRS)]
    if port_failed:
        raise FramesError("port sources do not compile for the ESP32-C3: " + ", ".join(port_failed))
    fns, defined = build_graph(ci_files, mcu_build, notes)
    port_symbols = {}
    for ci, titles in defined.items():
        if "_firmware_port_" not in ci.name:
            continue
        for sym, title in titles.items():
            if sym.startswith("_ZN3k324port") and "_GLOBAL__N_" not in sym:
                port_symbols[sym] = title
    # A caller names a constructor or destructor by its complete-object symbol (C1/D1), an
    # alias of the base-object body (C2/D2) GCC emits
    for sym, title in list(port_symbols.items()):
        alt = re.sub(r"(?<=[0-9A-Za-z_])([CD])2(?=E)", r"\g<1>1", sym)
        port_symbols.setdefault(alt, title)
    # What else the bare-metal port defines that the firmware calls (operator new and
    # delete): on a board the toolchain's libstdc++ provides them, over ESP-IDF's malloc
    for sym in sorted(stacks._port_symbols(mcu_build) - set(port_symbols)):
        if sym.startswith("_ZN3k324port"):
            continue  # a port function the ESP32 port lacks: the check reports it
        if sym not in fns or fns[sym].frame is None:
            stacks.attach_library(fns, fns.library, symbols=[sym])
        if sym in fns and fns[sym].frame is not None:
            port_symbols[sym] = sym
    table = {
        "about": (
            "Worst-case stack of each ESP32 port function with ESP-IDF below it, in bytes. "
            "Made by the command below; do not edit (docs/boards.md, `k32 check port-stacks`)."
        ),
        "command": "k32 check port-stacks --idf ESP_IDF_CHECKOUT --littlefs ESP_LITTLEFS_CHECKOUT",
        "made": datetime.date.today().isoformat(),
        "target": "esp32c3 rv32imc -Os",
        "versions": _versions(idf, littlefs),
        "components": components,
        "not_compiled": sorted(os.path.relpath(f, idf) if f.startswith(str(idf)) else f for f in failed),
        "sources": port_figures.source_digests(),
        "functions": _local_paths_dropped(figures(fns, notes, port_symbols), idf, littlefs),
    }
    Path(out).write_text(yaml.safe_dump(table, sort_keys=False, width=120, allow_unicode=True))
    return table
