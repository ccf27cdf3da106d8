"""`k32 check value-stacks`: the interpreter's value stack and call depth each shipped image
can need, against every board's wasm_value_stack and wasm_call_depth.

The bound is the firmware's own (module_stack_bound, computed as a module loads), asked of the
host build of the interpreter (`k32-wasm stack-bound`), so host and board cannot disagree on
what a frame takes. An image whose bound is unknown (recursion, a call through a shared
table) fails the check like one that does not fit: its figure would prove nothing."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from k32.boards import available, load_board

SLOT_BYTES = 8  # one value stack slot (the interpreter's Value)


class ValueStackError(Exception):
    pass


@dataclass
class Bound:
    slots: int | None  # None: unbounded
    frames: int | None
    why: str = ""  # unbounded: the interpreter's reason

    @property
    def bytes(self) -> int | None:
        return None if self.slots is None else self.slots * SLOT_BYTES


def bound(wasm: Path, tool: Path) -> Bound:
    """What `tool` (k32-wasm) computes for `wasm` at load."""
    r = subprocess.run([str(tool), "stack-bound", str(wasm)], capture_output=True, text=True)
    if r.returncode:
        raise ValueStackError(f"{wasm}: {r.stderr.strip() or f'k32-wasm exited with {r.returncode}'}")
    line = r.stdout.strip()
    if line.startswith("unbounded "):
        return Bound(None, None, line[len("unbounded ") :])
    words = line.split()
    if len(words) != 6 or words[0::2] != ["slots", "bytes", "frames"]:
        raise ValueStackError(f"{wasm}: unexpected k32-wasm stack-bound output {line!r}")
    return Bound(int(words[1]), int(words[5]))


def check(images: dict[str, Path], tool: Path, boards: list[str] | None = None) -> dict:
    """Every image (name -> .wasm) against every board (default: all profiles)."""
    limits = {}
    for name in boards or available():
        budgets = load_board(name).budgets
        limits[name] = (budgets["wasm_value_stack"]["bytes"], budgets["wasm_call_depth"]["count"])
    rows = []
    for image, wasm in images.items():
        b = bound(wasm, tool)
        for board, (stack_bytes, depth) in limits.items():
            fits = b.slots is not None and b.bytes <= stack_bytes and b.frames <= depth
            rows.append(
                {
                    "image": image,
                    "board": board,
                    "bytes": b.bytes,
                    "frames": b.frames,
                    "budget_bytes": stack_bytes,
                    "budget_frames": depth,
                    "unbounded": b.why or None,
                    "ok": fits,
                }
            )
    return {"rows": rows, "ok": all(r["ok"] for r in rows)}
