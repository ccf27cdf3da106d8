"""The bare-metal Cortex-M4 build (build/mcu): the portable firmware cross-compiled with
arm-none-eabi GCC + newlib as the boards compile it (-Os, no exceptions, no RTTI), its unit
tests run under qemu by ctest. It stands in for the boards' compilers in CI."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from k32 import REPO_ROOT

from .firmware import BUILD_JOBS, FIRMWARE_DIR, FirmwareBuildError, _run

MCU_BUILD_DIR = REPO_ROOT / "build" / "mcu"
TOOLCHAIN = FIRMWARE_DIR / "cmake" / "toolchains" / "cortex-m4.cmake"
# The budgets (thread stacks, call stack) the build is compiled with: the control-plane board.
MCU_BOARD = "s3"
NEEDED = {"arm-none-eabi-g++": "gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib",
          "qemu-system-arm": "qemu-system-arm"}


def build_mcu(build_dir: Path = MCU_BUILD_DIR, board: str = MCU_BOARD) -> Path:
    """Configure (once) and build every target of build/mcu; return the build folder.

    Without ccache: a cache hit restores the object and its .su but not the call graph
    (.ci) that `k32 check stacks` reads."""
    for tool, pkg in NEEDED.items():
        if shutil.which(tool) is None:
            raise FirmwareBuildError(f"{tool} not found (install the Debian package(s) {pkg})")
    build_dir = Path(build_dir)
    cache = build_dir / "CMakeCache.txt"
    # A tree configured with a compiler launcher (ccache) is configured again without one.
    launcher = cache.is_file() and "ccache" in "".join(
        line for line in cache.read_text(errors="replace").splitlines() if "COMPILER_LAUNCHER" in line)
    if not cache.is_file() or launcher:
        cfg = ["cmake", "-S", str(FIRMWARE_DIR), "-B", str(build_dir), f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}",
               "-DCMAKE_BUILD_TYPE=MinSizeRel", f"-DK32_BOARD={board}",
               "-DCMAKE_C_COMPILER_LAUNCHER=", "-DCMAKE_CXX_COMPILER_LAUNCHER="]
        _run(cfg, "cmake configure (mcu)")
    _run(["cmake", "--build", str(build_dir), "-j", BUILD_JOBS], "building build/mcu")
    return build_dir


def test_mcu(build_dir: Path = MCU_BUILD_DIR) -> int:
    """ctest of build/mcu (the tests run in qemu); returns ctest's exit status."""
    return subprocess.run(["ctest", "--test-dir", str(build_dir), "--output-on-failure"]).returncode
