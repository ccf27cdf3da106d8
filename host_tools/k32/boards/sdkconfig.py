"""The board's ESP-IDF settings and partition table, from boards/<board>.yaml.

    python -m k32.boards.sdkconfig --board s3 [--flash-size 16MB] --out-dir BUILD/k32

writes partitions.csv and sdkconfig.board (read by ESP-IDF after firmware/sdkconfig.defaults),
and board.cmake: the profile's choices the firmware component's build applies (K32_WASM_LOOP).
The firmware's CMakeLists.txt runs it while configuring, so PlatformIO, idf.py and the compile
check all get the same lines."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from k32.boards import Board, BoardError, load_board
from k32.boards.partition_table import to_csv

PARTITIONS_CSV = "partitions.csv"
SDKCONFIG_BOARD = "sdkconfig.board"
BOARD_CMAKE = "board.cmake"


def lines(board: Board, csv_path: Path) -> list[str]:
    out = [
        f"CONFIG_IDF_TARGET=\"{board.chip}\"",
        "CONFIG_PARTITION_TABLE_CUSTOM=y",
        f'CONFIG_PARTITION_TABLE_CUSTOM_FILENAME="{csv_path}"',
        f"CONFIG_PARTITION_TABLE_OFFSET={board.partition_table_offset:#x}",
        f"CONFIG_ESPTOOLPY_FLASHSIZE_{board.flash_size}=y",
        f"CONFIG_ESPTOOLPY_FLASHMODE_{board.flash_mode.upper()}=y",
        f"CONFIG_ESPTOOLPY_FLASHFREQ_{board.flash_freq.upper()}=y",
        f"CONFIG_ESP_MAIN_TASK_STACK_SIZE={board.budgets['main_stack']['bytes']}",
    ]
    if board.cores == 1:
        out.append("CONFIG_FREERTOS_UNICORE=y")
    if board.psram:
        out += [
            "CONFIG_SPIRAM=y",
            "CONFIG_SPIRAM_USE_MALLOC=y",
            # Task stacks in PSRAM (the budgets with region: psram).
            "CONFIG_FREERTOS_TASK_CREATE_ALLOW_EXT_MEM=y",
            # lwIP (and so the NAT table) may allocate from PSRAM.
            "CONFIG_SPIRAM_TRY_ALLOCATE_WIFI_LWIP=y",
        ]
        if board.chip == "esp32s3":
            out.append("CONFIG_SPIRAM_MODE_OCT=y")
    return out


def write(board: Board, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    csv = out_dir / PARTITIONS_CSV
    _write_if_changed(csv, to_csv(board.partitions))
    sdk = out_dir / SDKCONFIG_BOARD
    _write_if_changed(sdk, "\n".join(lines(board, csv)) + "\n")
    _write_if_changed(out_dir / BOARD_CMAKE, f'set(K32_WASM_LOOP "{board.wasm_loop}")\n')
    return csv, sdk


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8", newline="\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", required=True)
    ap.add_argument("--flash-size")
    ap.add_argument("--out-dir", required=True, type=Path)
    args = ap.parse_args(argv)
    try:
        board = load_board(args.board, args.flash_size or None)
        if not board.flashable:
            raise BoardError(f"board {board.name!r} is not a chip; it has no ESP-IDF settings")
    except BoardError as e:
        print(f"sdkconfig: {e}", file=sys.stderr)
        return 2
    write(board, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
