"""`k32 flash`: plan.py decides what goes where (from the board's partition table) and
checks it; writer.py writes the plan with esptool's Python API."""

from .plan import FlashError, Region, describe_plan, make_plan
from .writer import ROM_BAUD, write

__all__ = ["ROM_BAUD", "FlashError", "Region", "describe_plan", "make_plan", "write"]
