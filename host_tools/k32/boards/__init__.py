"""Board profiles (boards/<name>.yaml) and the board-independent numbers (boards/common.yaml).

profile.py loads and validates them; partition_table.py, gen_header.py, sdkconfig.py and
pio_board.py turn a loaded profile into what a build or a flash needs."""

from .profile import (
    APP_ALIGN,
    BOARDS_DIR,
    BUDGET_KEYS,
    COMMON_FILE,
    FLASH_FREQS,
    FLASH_MODES,
    FLASH_SECTOR,
    REGIONS,
    ROLES,
    Board,
    BoardError,
    Partition,
    available,
    flash_size_bytes,
    inproc_chain_stack,
    load_board,
    load_common,
    load_image_stacks,
)

__all__ = [
    "APP_ALIGN",
    "BOARDS_DIR",
    "BUDGET_KEYS",
    "COMMON_FILE",
    "FLASH_FREQS",
    "FLASH_MODES",
    "FLASH_SECTOR",
    "REGIONS",
    "ROLES",
    "Board",
    "BoardError",
    "Partition",
    "available",
    "flash_size_bytes",
    "inproc_chain_stack",
    "load_board",
    "load_common",
    "load_image_stacks",
]
