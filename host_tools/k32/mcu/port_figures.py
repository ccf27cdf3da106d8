"""The boards' port code in `k32 check stacks`: the worst-case stack of each function of the
ESP32 port (firmware/port/esp32, firmware/port/tls_mbedtls) with everything it runs below it
on the board (ESP-IDF's lwIP, mbedTLS, FreeRTOS, VFS, NVS, LittleFS), read from the table
firmware/port/esp32/stack_figures.yaml.

build/mcu links the bare-metal port instead, so the graph has no frames for these functions.
The table is made by `k32 check port-stacks` (idf_frames.py) from an ESP-IDF checkout: it
compiles the port and the ESP-IDF components for the ESP32-C3 with -fstack-usage and walks
their call graph as the check walks ours. Each figure is added where a thread calls the port
function; a port function a thread reaches with no figure, or whose figure is only a lower
bound, leaves the thread's figure a lower bound (which fails the check). The table names the
port sources it was made from (their SHA-256): when one has changed since, its figures are
out of date and the check refuses them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from k32 import REPO_ROOT

FIGURES = REPO_ROOT / "firmware" / "port" / "esp32" / "stack_figures.yaml"
# what the figures are computed from, besides ESP-IDF: a change here makes them stale
PORT_SOURCES = (
    "firmware/port/esp32",
    "firmware/port/tls_mbedtls",
    "firmware/port/posix",
    "firmware/sdkconfig.defaults",
)


class FiguresError(ValueError):
    pass


def source_digests(root: Path = REPO_ROOT) -> dict[str, str]:
    """SHA-256 of every port source the figures depend on, by repository path."""
    out = {}
    for rel in PORT_SOURCES:
        p = Path(root) / rel
        files = sorted(f for f in p.rglob("*") if f.is_file() and f.name != FIGURES.name) if p.is_dir() else [p]
        for f in files:
            out[str(f.relative_to(root))] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def load(path: Path = FIGURES, root: Path | None = REPO_ROOT) -> dict:
    """The table; with `root`, refused when a port source it was made from has changed."""
    path = Path(path)
    if not path.is_file():
        raise FiguresError(f"{path}: no port stack figures; make them with `k32 check port-stacks --idf DIR`")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data.get("functions"), dict):
        raise FiguresError(f"{path}: no `functions:` table")
    if root is not None and data.get("sources") is not None:
        now = source_digests(root)
        was = data["sources"]
        changed = sorted(k for k in set(now) | set(was) if now.get(k) != was.get(k))
        if changed:
            raise FiguresError(
                f"{path.name} is out of date: {', '.join(changed[:5])}"
                f"{' …' if len(changed) > 5 else ''} changed since its figures were made; "
                "rerun `k32 check port-stacks --idf DIR` (docs/boards.md)"
            )
    return data


def apply(fns: dict, table: dict) -> None:
    """Give each port function of the graph (origin "port": the bare-metal port's definition
    or a k32::port function this build does not define) its board figure. One the table does
    not have, or has only as a lower bound, gets `port_missing`: the walk reports it."""
    figures = table["functions"]
    tag = f"port, {table.get('target', 'board')}"
    for fn in fns.values():
        if fn.origin != "port":
            continue
        sym = fn.title.rsplit(":", 1)[-1] if fn.title.count(":") and "/" in fn.title else fn.title
        entry = figures.get(sym)
        if entry is None:
            fn.port_missing = f"no board figure for port function {fn.name} ({FIGURES.name})"
            continue
        fn.frame, fn.qualifier, fn.origin = int(entry["bytes"]), "static", tag
        fn.port_path = list(entry.get("path") or [])
        if entry.get("unbounded"):
            fn.port_missing = f"port function {fn.name}: its board figure is a lower bound ({entry['unbounded'][0]})"
