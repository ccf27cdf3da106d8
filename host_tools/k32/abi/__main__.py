"""`python -m k32.abi …` (the firmware build calls it without the console script)."""

from .cli import abi

abi(prog_name="k32 abi")
