"""PlatformIO pre-script (firmware/platformio.ini `extra_scripts`): applies the board profile
named by `custom_k32_board` — flash parameters, the partition table CSV, PSRAM sdkconfig and
k32_board.h — so platformio.ini never repeats a number from boards/."""
# PlatformIO runs this with SCons' Import/env; it is not importable as a normal module.
import os
import sys

Import("env")  # noqa: F821  (SCons builtin)

REPO = os.path.abspath(os.path.join(env.subst("$PROJECT_DIR"), ".."))  # noqa: F821
sys.path.insert(0, os.path.join(REPO, "host_tools"))

from k32.boards import BoardError, load_board  # noqa: E402
from k32.boards import gen_header  # noqa: E402
from k32.boards.partition_table import to_csv  # noqa: E402

name = env.GetProjectOption("custom_k32_board")  # noqa: F821
try:
    board = load_board(name, env.GetProjectOption("custom_k32_flash_size", None))  # noqa: F821
except BoardError as e:
    sys.stderr.write(f"k32: {e}\n")
    env.Exit(2)  # noqa: F821

gen_dir = os.path.join(env.subst("$BUILD_DIR"), "k32")  # noqa: F821
os.makedirs(gen_dir, exist_ok=True)
csv = os.path.join(gen_dir, "partitions.csv")
with open(csv, "w", encoding="utf-8", newline="\n") as f:
    f.write(to_csv(board.partitions))
gen_header.main(["--board", board.name, "--out", os.path.join(gen_dir, "k32_board.h")])

sdkconfig = os.path.join(gen_dir, "sdkconfig.k32")
lines = [
    "CONFIG_PARTITION_TABLE_CUSTOM=y",
    f'CONFIG_PARTITION_TABLE_CUSTOM_FILENAME="{csv}"',
    f"CONFIG_PARTITION_TABLE_OFFSET={board.partition_table_offset:#x}",
    f"CONFIG_ESPTOOLPY_FLASHSIZE_{board.flash_size}=y",
    f"CONFIG_ESPTOOLPY_FLASHMODE_{board.flash_mode.upper()}=y",
    f"CONFIG_ESPTOOLPY_FLASHFREQ_{board.flash_freq.upper()}=y",
    "CONFIG_COMPILER_CXX_EXCEPTIONS=n",
    "CONFIG_COMPILER_CXX_RTTI=n",
]
if board.psram:
    lines += ["CONFIG_SPIRAM=y", "CONFIG_SPIRAM_USE_MALLOC=y"]
with open(sdkconfig, "w", encoding="utf-8", newline="\n") as f:
    f.write("\n".join(lines) + "\n")

env.BoardConfig().update("build.flash_mode", board.flash_mode)  # noqa: F821
env.BoardConfig().update("build.f_flash", f"{int(board.flash_freq[:-1]) * 1000000}L")  # noqa: F821
env.BoardConfig().update("upload.flash_size", board.flash_size)  # noqa: F821
env.BoardConfig().update("build.partitions", csv)  # noqa: F821
env.Append(CPPPATH=[gen_dir])  # noqa: F821
env.Append(BUILD_FLAGS=[f"-I{gen_dir}"])  # noqa: F821
# ESP-IDF reads extra sdkconfig defaults after the project's own.
env.Append(CMAKE_EXTRA_ARGS=[f"-DSDKCONFIG_DEFAULTS={sdkconfig}"])  # noqa: F821
