"""Locates (and when stale, builds) the k32-wasm command-line tool."""

import os
import subprocess
from pathlib import Path

from k32 import REPO_ROOT

FIRMWARE = REPO_ROOT / "firmware"
DEFAULT_BUILD_DIR = REPO_ROOT / "build" / "wasm"
# Sources whose change makes the tool stale.
_SOURCE_DIRS = [FIRMWARE / "src" / "wasm", FIRMWARE / "tools" / "wasm"]


class ToolError(Exception):
    pass


def _newest_source() -> float:
    return max((p.stat().st_mtime for d in _SOURCE_DIRS for p in d.iterdir() if p.is_file()), default=0.0)


def build_tool(build_dir: Path = DEFAULT_BUILD_DIR, target: str = "k32-wasm", extra: tuple = ()) -> Path:
    """Configures build_dir (Release) if needed and builds `target`; returns the binary."""
    if not (build_dir / "CMakeCache.txt").exists():
        cmd = ["cmake", "-S", str(FIRMWARE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release", *extra]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise ToolError(f"cmake configure failed in {build_dir}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    r = subprocess.run(
        ["nice", "cmake", "--build", str(build_dir), "-j2", "--target", target], capture_output=True, text=True
    )
    if r.returncode:
        raise ToolError(f"building {target} failed:\n{r.stdout[-3000:]}{r.stderr[-2000:]}")
    return build_dir / target


def wasm_tool() -> Path:
    """$K32_WASM_TOOL if set, else build/wasm/k32-wasm rebuilt when older than its sources."""
    env = os.environ.get("K32_WASM_TOOL")
    if env:
        p = Path(env)
        if not p.is_file():
            raise ToolError(f"K32_WASM_TOOL={env}: no such file")
        return p
    binary = DEFAULT_BUILD_DIR / "k32-wasm"
    if binary.is_file() and binary.stat().st_mtime >= _newest_source():
        return binary
    return build_tool()
