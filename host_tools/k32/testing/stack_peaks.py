"""Every test cluster's thread stacks, read as each cluster stops: the peak each kind of thread
reached against the budget it was given (STATUS `stacks`), and any `stack overflow in thread`
a node died of. The pytest plugin (pytest_plugin.py) fails the run at its end when any thread
went past its budget, so a test that only passes because the simulator's stacks are roomy
shows up here, in the default profile and in board mode alike.

Records are kept per process; pytest-xdist workers hand theirs to the controller."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

OVERFLOW_MARK = "stack overflow in thread"
HEAP_MARK = "[PORT] out of heap"  # a node stopped because an allocation found its region full
STATUS_TIMEOUT = 2.0  # a stopped (SIGSTOP) node must not hold a cluster's teardown long
LOG_LINE_MAX = 300


@dataclass
class StackPeak:
    """One kind of thread on one node: the deepest use seen against its budget."""

    board: str
    node: str
    thread: str
    budget: int
    peak: int
    threads: int
    cluster: str  # the cluster's state dir, to find its logs

    @property
    def over(self) -> bool:
        return self.peak > self.budget


@dataclass
class StopLine:
    """A line of a node's log that says why it stopped (its guard page, or a full heap region)."""

    board: str
    node: str
    line: str
    cluster: str


class StackPeaks:
    """What the clusters of this process reported; merged across pytest-xdist workers."""

    def __init__(self):
        self.peaks: dict[tuple[str, str, int], StackPeak] = {}  # (board, thread, budget) -> deepest
        self.overflows: dict[tuple[str, str], StopLine] = {}  # (log file, line) -> where
        self.unread: list[str] = []  # nodes whose STATUS could not be read as they stopped
        self.out_of_heap: dict[tuple[str, str], StopLine] = {}  # listed, not judged here
        self.clusters = 0

    def add_peak(self, p: StackPeak) -> None:
        key = (p.board, p.thread, p.budget)
        old = self.peaks.get(key)
        if old is None or p.peak > old.peak:
            if old is not None:
                p.threads += old.threads
            self.peaks[key] = p
        else:
            old.threads += p.threads

    def record(self, cluster) -> None:
        """Read every running node's STATUS and scan every node's log; call before stopping."""
        from k32.sim.console import ConsoleError, command

        if not cluster.sim_file.is_file():
            return  # not running (stopped already, or never started)
        self.clusters += 1
        live = {n["name"] for n in cluster.running_nodes()}
        for spec in cluster.nodes:
            board = cluster.board_of(spec)
            for log in (cluster.log_path(spec.name), cluster.log_path(spec.name).with_suffix(".log.1")):
                self._scan_log(log, board, spec.name, cluster)
            if spec.name not in live:
                continue
            try:
                st = command(spec.console, "STATUS", timeout=STATUS_TIMEOUT)
            except ConsoleError as e:
                self.unread.append(f"{spec.name} ({cluster.state}): {e}")
                continue
            for row in st.get("stacks") or []:
                try:
                    self.add_peak(
                        StackPeak(
                            board,
                            spec.name,
                            str(row["name"]),
                            int(row["budget"]),
                            int(row["peak"]),
                            int(row.get("threads", 0)),
                            str(cluster.state),
                        )
                    )
                except (KeyError, TypeError, ValueError):
                    self.unread.append(f"{spec.name} ({cluster.state}): malformed stacks row {row!r}")

    def _scan_log(self, log: Path, board: str, node: str, cluster) -> None:
        try:
            text = log.read_text(errors="replace")
        except OSError:
            return
        for line in text.splitlines():
            if OVERFLOW_MARK in line:
                key = (str(log), line)
                self.overflows.setdefault(key, StopLine(board, node, line[:LOG_LINE_MAX], str(cluster.state)))
            elif HEAP_MARK in line:
                key = (str(log), line)
                self.out_of_heap.setdefault(key, StopLine(board, node, line[:LOG_LINE_MAX], str(cluster.state)))

    # ---- across processes (pytest-xdist) ------------------------------------------------
    def to_json(self) -> dict:
        return {
            "peaks": [asdict(p) for p in self.peaks.values()],
            "overflows": [{"log": k[0], **asdict(o)} for k, o in self.overflows.items()],
            "unread": list(self.unread),
            "outOfHeap": [{"log": k[0], **asdict(o)} for k, o in self.out_of_heap.items()],
            "clusters": self.clusters,
        }

    def merge_json(self, doc: dict) -> None:
        for p in doc.get("peaks", []):
            self.add_peak(StackPeak(**p))
        for o in doc.get("overflows", []):
            log = o.pop("log")
            self.overflows.setdefault((log, o["line"]), StopLine(**o))
        self.unread.extend(doc.get("unread", []))
        for o in doc.get("outOfHeap", []):
            log = o.pop("log")
            self.out_of_heap.setdefault((log, o["line"]), StopLine(**o))
        self.clusters += int(doc.get("clusters", 0))

    # ---- the verdict --------------------------------------------------------------------
    def failures(self) -> list[str]:
        out = [
            f"{p.board} {p.thread}: peak {p.peak} B > budget {p.budget} B (node {p.node}, cluster {p.cluster})"
            for p in sorted(self.peaks.values(), key=lambda p: (p.board, p.thread))
            if p.over
        ]
        out += [f"{o.board} {o.node}: {o.line} (cluster {o.cluster})" for o in self.overflows.values()]
        return out

    def table(self) -> str:
        """Every kind of thread per board: budget, deepest peak, headroom, threads started."""
        rows = sorted(self.peaks.values(), key=lambda p: (p.board, p.thread, p.budget))
        head = f"{'board':<6} {'thread':<18} {'budget':>8} {'peak':>8} {'left':>8} {'threads':>8}"
        lines = [head, "-" * len(head)]
        for p in rows:
            flag = "  OVER BUDGET" if p.over else ""
            lines.append(
                f"{p.board:<6} {p.thread:<18} {p.budget:>8} {p.peak:>8} {p.budget - p.peak:>8} {p.threads:>8}{flag}"
            )
        return "\n".join(lines)


RECORDED = StackPeaks()
