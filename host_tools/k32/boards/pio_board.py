"""PlatformIO pre-script (firmware/platformio.ini `extra_scripts`): names the board profile
(`custom_k32_board`) to ESP-IDF's configure of firmware/CMakeLists.txt, which generates the
board's sdkconfig lines, partition table and k32_board.h from boards/ (the same step idf.py
and the compile check run), and gives PlatformIO's uploader the flash parameters. So
platformio.ini never repeats a number from boards/."""

# PlatformIO runs this with SCons' Import/env; it is not importable as a normal module.
import os
import sys

Import("env")  # noqa: F821  (SCons builtin)

REPO = os.path.abspath(os.path.join(env.subst("$PROJECT_DIR"), ".."))  # noqa: F821
sys.path.insert(0, os.path.join(REPO, "host_tools"))

from k32.boards import BoardError, load_board  # noqa: E402
from k32.boards.sdkconfig import PARTITIONS_CSV  # noqa: E402

name = env.GetProjectOption("custom_k32_board")  # noqa: F821
flash_size = env.GetProjectOption("custom_k32_flash_size", None)  # noqa: F821
try:
    board = load_board(name, flash_size)
except BoardError as e:
    sys.stderr.write(f"k32: {e}\n")
    env.Exit(2)  # noqa: F821

args = [f"-DK32_BOARD={board.name}"]
if flash_size:
    args.append(f"-DK32_FLASH_SIZE={flash_size}")
board_cfg = env.BoardConfig()  # noqa: F821
board_cfg.update("build.cmake_extra_args", " ".join(args))
board_cfg.update("build.flash_mode", board.flash_mode)
board_cfg.update("build.f_flash", f"{int(board.flash_freq[:-1]) * 1000000}L")
board_cfg.update("upload.flash_size", board.flash_size)
# ESP-IDF's configure writes the table here (CMAKE_BINARY_DIR is PlatformIO's BUILD_DIR).
board_cfg.update("build.partitions", os.path.join(env.subst("$BUILD_DIR"), "k32", PARTITIONS_CSV))  # noqa: F821
