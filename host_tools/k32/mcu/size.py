"""`k32 bench size`: .text/.rodata/.data/.bss of the build/mcu objects per component
(src/wasm, src/core/<dir>, src/app, generated), with the verdicts on the totals."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from k32 import REPO_ROOT

MCU_BUILD_DIR = REPO_ROOT / "build" / "mcu"
SRC_TEXT_MAX = 1024 * 1024  # the whole portable firmware (src/) on a board's app partition
WASM_TEXT_REFERENCE = 80 * 1024  # the interpreter's size target (information, not a verdict)
KINDS = ("text", "rodata", "data", "bss")
# The interpreter's dispatch loop (k32::wasm::execute, its hot handlers): the code a board with
# wasm_loop: iram places in instruction RAM; the cold handlers (exec_cold) stay in flash.
WASM_LOOP_SECTION = ".text._ZN3k324wasm7executeE"


class SizeError(RuntimeError):
    pass


def _kind(section: str) -> str | None:
    for k in KINDS:
        if section == f".{k}" or section.startswith(f".{k}."):
            return k
    return None


def _component(obj: Path) -> str | None:
    """src/wasm -> wasm, src/core/<dir> -> core/<dir>, src/app -> app, generated -> generated."""
    parts = obj.parts
    if "src" in parts:
        i = parts.index("src")
        area = parts[i + 1] if i + 1 < len(parts) else ""
        if area == "core" and i + 3 < len(parts):
            return f"core/{parts[i + 2]}"
        if area in ("wasm", "app", "core"):
            return area
    if "generated" in parts:
        return "generated"
    return None


def measure(build_dir: Path = MCU_BUILD_DIR) -> dict:
    size_tool = shutil.which("arm-none-eabi-size")
    if size_tool is None:
        raise SizeError("arm-none-eabi-size not found (Debian package binutils-arm-none-eabi)")
    objs = []
    for lib in ("k32wasm", "k32core", "k32app"):
        objs += sorted((Path(build_dir) / "CMakeFiles" / f"{lib}.dir").rglob("*.obj"))
    if not objs:
        raise SizeError(f"no objects in {build_dir}: run `k32 build firmware --target mcu` first")
    out = subprocess.run([size_tool, "-A", "-d", *map(str, objs)], capture_output=True, text=True, check=True)
    comps: dict[str, dict] = {}
    current = None
    loop_text = 0
    for line in out.stdout.splitlines():
        if line.rstrip().endswith(":") and not line.startswith("."):
            path = line.rstrip()[:-1].strip()
            current = _component(Path(path))
            continue
        fields = line.split()
        if current is None or len(fields) < 2 or not fields[1].isdigit():
            continue
        if current == "wasm" and fields[0].startswith(WASM_LOOP_SECTION):
            loop_text += int(fields[1])
        kind = _kind(fields[0])
        if kind:
            comp = comps.setdefault(current, dict.fromkeys(KINDS, 0))
            comp[kind] += int(fields[1])
    src = {k: sum(v[k] for c, v in comps.items() if c != "generated") for k in KINDS}
    wasm_text = comps.get("wasm", {}).get("text", 0)
    return {
        "build_dir": str(build_dir),
        "components": dict(sorted(comps.items())),
        "src_total": src,
        "verdicts": {
            "src_text": {"bytes": src["text"], "limit": SRC_TEXT_MAX, "ok": src["text"] <= SRC_TEXT_MAX},
            "wasm_text": {
                "bytes": wasm_text,
                "reference": WASM_TEXT_REFERENCE,
                "note": "information: the interpreter's size target",
            },
            "wasm_loop_text": {
                "bytes": loop_text,
                "note": "information: execute(), the dispatch loop a board with wasm_loop: iram puts in IRAM",
            },
        },
    }
