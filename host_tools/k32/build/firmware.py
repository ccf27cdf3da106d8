"""Build the simulator binary `k32-node` with CMake, only when it is missing or stale."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from k32 import REPO_ROOT

FIRMWARE_DIR = REPO_ROOT / "firmware"
DEFAULT_BUILD_DIR = REPO_ROOT / "build" / "host"
NODE_TARGET = "k32-node"
# Inputs whose change means the binary must be rebuilt. The generators read wasm_abi/ and
# boards/, so those count too.
SOURCE_DIRS = ("firmware", "wasm_abi", "boards")
SOURCE_SUFFIXES = {
    ".cpp",
    ".cc",
    ".c",
    ".h",
    ".hpp",
    ".inc",
    ".cmake",
    ".txt",
    ".py",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
}
LOG_TAIL_LINES = 30
# The machine is shared; never build with more than two jobs.
BUILD_JOBS = "2"


class FirmwareBuildError(RuntimeError):
    """The host build failed; the message ends with the tail of the build output."""


def build_dir_for(board: str = "sim", m32: bool = False) -> Path:
    """Where the k32-node with `board`'s budgets is built: the budgets are compiled in from
    the generated board header, so each profile has its own tree (build/host-<board>); the
    32-bit build (the boards' pointer size, `m32`) has its own too (build/host32[-<board>])."""
    name = "host32" if m32 else "host"
    return REPO_ROOT / "build" / (name if board == "sim" else f"{name}-{board}")


def node_binary(build_dir: Path = DEFAULT_BUILD_DIR) -> Path:
    return Path(build_dir) / NODE_TARGET


def newest_source_mtime() -> float:
    newest = 0.0
    for name in SOURCE_DIRS:
        root = REPO_ROOT / name
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for f in filenames:
                if Path(f).suffix in SOURCE_SUFFIXES or f == "CMakeLists.txt":
                    try:
                        newest = max(newest, os.stat(os.path.join(dirpath, f)).st_mtime)
                    except OSError:
                        continue  # a file removed while we walk is not an input any more
    return newest


def _stamp(build_dir: Path) -> Path:
    # Touched after every successful build: a no-op build does not relink the binary, so the
    # binary's own mtime would keep it "stale" forever after an unrelated source change.
    return Path(build_dir) / ".k32-node.built"


def is_stale(build_dir: Path = DEFAULT_BUILD_DIR) -> bool:
    binary, stamp = node_binary(build_dir), _stamp(build_dir)
    if not binary.is_file():
        return True
    built = max(binary.stat().st_mtime, stamp.stat().st_mtime if stamp.is_file() else 0.0)
    return built < newest_source_mtime()


def _tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    """The first compiler errors (with the line after each) and the last lines: a parallel
    build prints its first failure far from the end."""
    all_lines = text.strip().splitlines()
    taken: list[int] = []
    for i, line in enumerate(all_lines):
        if re.search(r"\berror:", line, re.I) or re.search(r"^CMake Error", line):
            taken.extend(j for j in (i, i + 1) if j < len(all_lines) and j not in taken)
            if len(taken) >= lines // 2:
                break
    picked = [all_lines[j] for j in taken]
    rest = all_lines[-(lines - len(picked)) :]
    return "\n".join(picked + (["..."] if picked else []) + rest)


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(
        cmd, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    if proc.returncode != 0:
        raise FirmwareBuildError(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{_tail(proc.stdout)}")


def build_firmware(
    build_dir: Path = DEFAULT_BUILD_DIR, target: str = NODE_TARGET, m32: bool = False, board: str = "sim"
) -> Path:
    """Configure (once) and build `target`; return the path of the node binary."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise FirmwareBuildError("cmake not found on PATH (install the 'cmake' package)")
    build_dir = Path(build_dir)
    if not (build_dir / "CMakeCache.txt").is_file():
        cfg = [cmake, "-S", str(FIRMWARE_DIR), "-B", str(build_dir)]
        if m32:
            cfg.append("-DK32_M32=ON")
        if board != "sim":
            cfg.append(f"-DK32_BOARD={board}")
        if shutil.which("ccache"):
            cfg += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        _run(cfg, "cmake configure")
    nice = ["nice", "-n", "10"] if shutil.which("nice") else []
    started = time.time()
    _run(nice + [cmake, "--build", str(build_dir), "-j", BUILD_JOBS, "--target", target], f"building {target}")
    if target == NODE_TARGET:
        # The build saw the sources as of `started`; a file saved during it stays newer.
        _stamp(build_dir).touch()
        os.utime(_stamp(build_dir), (started, started))
    binary = node_binary(build_dir)
    if target == NODE_TARGET and not binary.is_file():
        raise FirmwareBuildError(f"build succeeded but {binary} does not exist")
    return binary


def ensure_firmware(build_dir: Path | None = None, board: str = "sim", m32: bool = False) -> Path:
    """Return the k32-node path, building it first when missing or older than its sources.

    $K32_NODE_BINARY overrides everything for the default profile (a prebuilt binary, e.g. a
    sanitizer build); another board's node is always its own build (build/host-<board>)."""
    override = os.environ.get("K32_NODE_BINARY") if board == "sim" and not m32 else None
    if override:
        path = Path(override)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise FirmwareBuildError(f"K32_NODE_BINARY={override} is not an executable file")
        return path
    build_dir = Path(build_dir) if build_dir else build_dir_for(board, m32)
    if not is_stale(build_dir):
        return node_binary(build_dir)
    with _build_lock(build_dir):
        # Another process may have built it while this one waited for the lock.
        if is_stale(build_dir):
            return build_firmware(build_dir, m32=m32, board=board)
    return node_binary(build_dir)


@contextlib.contextmanager
def _build_lock(build_dir: Path):
    """Several test sessions (one per engineer or CI job) may want the binary at once; two
    concurrent `cmake --build` runs in one tree corrupt each other's objects."""
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    lock_path = build_dir.parent / f".{build_dir.name}.build-lock"
    with open(lock_path, "w") as lock:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): build unguarded
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
