"""The test suites' pytest plugin (loaded with `-p k32.testing.pytest_plugin`, see pyproject.toml):

- `--board-mode` starts every test cluster that does not name its boards as
  `k32 sim up --board s3 --worker-board esp32` would: the control plane under the ESP32-S3's
  budgets, every worker under the classic ESP32's ($K32_TEST_BOARDS=CP,WORKER picks others);
- at the end of the run, a table of every kind of thread's deepest stack use against its
  budget, read from each node as its cluster stopped; any thread past its budget, or a node
  that died of a stack overflow, fails the run (also with pytest-xdist: the workers hand
  their records to the controller)."""

from __future__ import annotations

import json
import os

import pytest

from k32.sim.cluster import SimError

from .clusters import BOARDS_ENV, board_mode, boards_for_tests
from .stack_peaks import RECORDED

BOARD_MODE_BOARDS = "s3,esp32"  # what a Kube32 board cluster is: an S3 control plane, ESP32 workers
WORKER_OUTPUT_KEY = "k32_stack_peaks"


def pytest_addoption(parser):
    g = parser.getgroup("kube32")
    g.addoption(
        "--board-mode",
        action="store_true",
        help=f"start every test cluster under the boards' budgets ({BOARD_MODE_BOARDS}: control plane, workers); "
        f"${BOARDS_ENV}=CP[,WORKER] picks other boards",
    )


def pytest_configure(config):
    if config.getoption("--board-mode", default=False):
        # In the environment, so pytest-xdist workers and the processes tests start see it too.
        os.environ[BOARDS_ENV] = BOARD_MODE_BOARDS
    try:
        boards_for_tests()
    except SimError as e:
        raise pytest.UsageError(str(e))
    config.addinivalue_line("markers", "board_mode_skip(reason): skipped when test clusters run in board mode")
    config.addinivalue_line(
        "markers",
        "board_mode_xfail(reason): a known failure in board mode, expected to fail there until fixed "
        "(strict: a pass there fails the run)",
    )


def pytest_report_header(config):
    cp, worker = boards_for_tests()
    mode = "board mode" if board_mode() else "default simulator profile"
    return f"kube32 test clusters: control plane {cp}, workers {worker} ({mode})"


def _reason(item, mark) -> str:
    reason = mark.kwargs.get("reason") or (mark.args[0] if mark.args else "")
    if not reason:
        raise pytest.UsageError(f"{item.nodeid}: {mark.name} needs a reason")
    return f"board mode: {reason}"


def pytest_collection_modifyitems(config, items):
    """`@pytest.mark.board_mode_skip(reason=...)`: what a board cannot hold (more pods than an
    ESP32 worker takes, objects larger than its budgets) is skipped in board mode, with why.
    `@pytest.mark.board_mode_xfail(reason=...)`: a defect the board's budgets show and that is
    not fixed yet; the test still runs there. Strict: once it passes, the run fails (XPASS
    strict) until the mark is removed, so marks of fixed defects do not pile up."""
    if not board_mode():
        return
    for item in items:
        mark = item.get_closest_marker("board_mode_skip")
        if mark is not None:
            item.add_marker(pytest.mark.skip(reason=_reason(item, mark)))
        mark = item.get_closest_marker("board_mode_xfail")
        if mark is not None:
            item.add_marker(pytest.mark.xfail(reason=_reason(item, mark), strict=True))


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller judges
        config.workeroutput[WORKER_OUTPUT_KEY] = json.dumps(RECORDED.to_json())
        return
    if RECORDED.failures() and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist: a worker finished; its clusters' records join the controller's."""
    raw = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY)
    if raw:
        RECORDED.merge_json(json.loads(raw))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput") or not RECORDED.clusters:
        return
    tr = terminalreporter
    tr.section(f"thread stacks: deepest use against the budget ({RECORDED.clusters} clusters stopped)")
    tr.write_line(RECORDED.table())
    for line in RECORDED.unread:
        tr.write_line(f"not read (node not answering as it stopped): {line}")
    # Not a stack verdict, but what a test that timed out on a board may have died of.
    for o in RECORDED.out_of_heap.values():
        tr.write_line(f"node stopped out of heap: {o.board} {o.node}: {o.line} (cluster {o.cluster})", yellow=True)
    failures = RECORDED.failures()
    if failures:
        tr.write_line("")
        tr.write_line(f"FAILED: {len(failures)} thread(s) went past their stack budget:", red=True, bold=True)
        for line in failures:
            tr.write_line(f"  {line}", red=True)
