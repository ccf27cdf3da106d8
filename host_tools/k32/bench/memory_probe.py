"""The node's own account of its heap (K32_CMD:STATUS on its console), read once the node is
quiet: one sample says little, since a heartbeat, a usage report or the scheduler's pass holds
a few KB for a moment. A reading is the lowest heap of a window of samples (what the node
holds at rest, transients only add to it), taken once that low point stopped moving between
two consecutive windows.

The figure judged is the heap the board must hold in internal RAM, not counting linear memory:
everything the node has allocated (both regions) less the pods' linear memory and, where the
board has PSRAM, their value stacks (the only blocks the board may keep in PSRAM at rest; the
node reports both, so this is a subtraction of what it counted, not an assumption), and less the
running threads' stacks: they are heap on the board too (and the node books them), but each is
its budget in boards/, judged against that by the thread-stack target, not by a heap target."""

from __future__ import annotations

import time
from dataclasses import dataclass

from k32.sim.console import ConsoleError, command

SAMPLE_INTERVAL_S = 0.2
WINDOW_S = 3.0  # a heartbeat period fits in it, so each window sees the node at rest once
STEADY_BYTES = 256  # two windows' low points this close: the node is quiet
SETTLE_TIMEOUT_S = 45.0

HOW = (
    f"heap from the node's STATUS (its allocator's count per region), sampled every "
    f"{SAMPLE_INTERVAL_S:g} s; a figure is the lowest sample (of 'internal, w/o linear') of a {WINDOW_S:g} s window, "
    f"taken once two consecutive windows' lows are within {STEADY_BYTES} B (the node is quiet), "
    f"with the pods Running and answering through the Ingress where there are pods; "
    f"'internal, w/o linear' = internal + PSRAM - the pods' linear memory - their value stacks where they "
    f"go to PSRAM - the running threads' stacks (the node reports them all): the same whichever region a block "
    f"was booked in; the node books internal RAM first, so 'spilled' (blocks that found internal RAM full and "
    f"went to PSRAM) is 0 unless the node ran short"
)


class ProbeError(RuntimeError):
    pass


class BenchError(RuntimeError):
    """A step of the bench could not be done (an API request refused, an object never ready)."""


@dataclass
class Reading:
    internal: int  # heapInternalBytes
    psram: int  # heapPsramBytes
    linear: int  # podLinearBytes: the pods' linear memory, inside the two above
    bulk: int  # podBulkBytes: linear memory and value stacks, which the kubelet asks PSRAM for
    bulk_region: str  # where that went: "psram" | "internal" (a board without PSRAM)
    store: int  # podStoreBytes: the pods' whole interpreter stores, linear memory included
    spilled: int  # heapSpilledBytes: of psram, blocks that asked for internal RAM first and found it full
    quiet: bool  # the low point settled before the timeout
    stacks: list
    stack_heap: int = 0  # heapStackBytes: the running threads' stacks, inside internal + PSRAM
    history: int = 0  # historyBytes: the watch history's superseded versions, as it counts them
    events: int = 0  # eventsBytes: the Events kept, as their budget counts them

    @property
    def internal_steady(self) -> int:
        """internal_without_linear less the two stores the bench holds at their byte budget
        (the watch history, the Events kept). Full, each drops its oldest entries as new ones
        come, so it sits anywhere within one entry below its budget: a heartbeat's Node status
        write moves it by up to a Node version (1.6 KB), more after pods' and Events' larger
        entries. A figure taken at that steady state leaves both out, so it holds what stays."""
        return self.internal_without_linear - self.history - self.events

    @property
    def internal_without_linear(self) -> int:
        """What the board holds in internal RAM, the pods' linear memory left out."""
        pod = self.bulk if self.bulk_region == "psram" else self.linear
        return self.internal + self.psram - pod - self.stack_heap

    @property
    def psram_other(self) -> int:
        """PSRAM beyond the pods' linear memory and value stacks (spilled blocks, stacks and buffers placed there)."""
        return self.psram - (self.bulk if self.bulk_region == "psram" else 0)

    def as_dict(self) -> dict:
        return {
            "internalBytes": self.internal,
            "psramBytes": self.psram,
            "podLinearBytes": self.linear,
            "podBulkBytes": self.bulk,
            "podBulkRegion": self.bulk_region,
            "podStoreBytes": self.store,
            "threadStackBytes": self.stack_heap,
            "internalWithoutLinearBytes": self.internal_without_linear,
            "historyBytes": self.history,
            "eventsBytes": self.events,
            "psramOtherBytes": self.psram_other,
            "spilledBytes": self.spilled,
            "quiet": self.quiet,
        }


def status(console: str) -> dict:
    try:
        st = command(console, "STATUS")
    except (ConsoleError, OSError) as e:
        raise ProbeError(f"STATUS from {console}: {e}") from None
    for key in ("heapInternalBytes", "heapPsramBytes", "podLinearBytes", "podBulkBytes", "podBulkRegion", "stacks"):
        if key not in st:
            raise ProbeError(f"STATUS from {console} has no {key!r}: the node is older than this bench")
    return st


def _judged(st: dict) -> int:
    pod = st["podBulkBytes"] if st["podBulkRegion"] == "psram" else st["podLinearBytes"]
    return st["heapInternalBytes"] + st["heapPsramBytes"] - pod - st.get("heapStackBytes", 0)


def _steady(st: dict) -> int:
    """_judged less the watch history and the Events kept (Reading.internal_steady)."""
    return _judged(st) - st.get("historyBytes", 0) - st.get("eventsBytes", 0)


def settle(console: str, timeout: float = SETTLE_TIMEOUT_S, steady: bool = False) -> Reading:
    """The node's heap at rest (see the module's docstring); `steady`: the low point and the
    quiet test are those of Reading.internal_steady (the history and Events left out)."""
    judged = _steady if steady else _judged
    per_window = max(2, round(WINDOW_S / SAMPLE_INTERVAL_S))
    deadline = time.monotonic() + timeout
    samples: list[dict] = []
    previous_low: dict | None = None
    while True:
        samples.append(status(console))
        if len(samples) == per_window:
            low = min(samples, key=judged)
            quiet = previous_low is not None and abs(judged(low) - judged(previous_low)) <= STEADY_BYTES
            if quiet or time.monotonic() >= deadline:
                return Reading(
                    internal=low["heapInternalBytes"],
                    psram=low["heapPsramBytes"],
                    linear=low["podLinearBytes"],
                    bulk=low["podBulkBytes"],
                    bulk_region=low["podBulkRegion"],
                    store=low.get("podStoreBytes", 0),
                    spilled=low.get("heapSpilledBytes", 0),
                    quiet=quiet,
                    stacks=samples[-1]["stacks"],
                    stack_heap=low.get("heapStackBytes", 0),
                    history=low.get("historyBytes", 0),
                    events=low.get("eventsBytes", 0),
                )
            previous_low, samples = low, []
        time.sleep(SAMPLE_INTERVAL_S)
