"""What the board firmware compiles, as its ESP-IDF component sees it: firmware/CMakeLists.txt
configured with K32_LIST_SOURCES (cmake/list_sources.cmake) runs the same generators and
lists K32_BOARD_FIRMWARE_SRC, failing when a file is missing or listed twice."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from k32 import REPO_ROOT
from k32.boards import BoardError, load_board

from .firmware import FIRMWARE_DIR, FirmwareBuildError, _tail


def list_sources(board: str, build_dir: Path) -> list[str]:
    try:
        if not load_board(board).flashable:
            raise FirmwareBuildError(f"board {board!r} is the simulator; --list is for board firmware")
    except BoardError as e:
        raise FirmwareBuildError(str(e)) from None
    cmake = shutil.which("cmake")
    if cmake is None:
        raise FirmwareBuildError("cmake not found on PATH (install the 'cmake' package)")
    proc = subprocess.run([cmake, "-S", str(FIRMWARE_DIR), "-B", str(build_dir), "-DK32_LIST_SOURCES=ON",
                           f"-DK32_BOARD={board}"], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace")
    if proc.returncode != 0:
        raise FirmwareBuildError(f"listing the {board} firmware's sources failed:\n{_tail(proc.stdout)}")
    return (Path(build_dir) / "firmware-sources.txt").read_text(encoding="utf-8").splitlines()
