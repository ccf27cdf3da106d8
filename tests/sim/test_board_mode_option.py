"""`pytest --board-mode` (k32.testing.pytest_plugin): every test cluster that does not choose
its boards gets the S3 control plane and ESP32 workers, and the board-mode markers skip or
expect to fail a test there only, with the reason shown. Run as separate pytest sessions."""

import os
import subprocess
import sys
import textwrap

from k32.testing.clusters import BOARDS_ENV

INNER = """
import pytest
from k32.testing.clusters import make_test_cluster

def test_clusters_boards(tmp_path):
    c = make_test_cluster(tmp_path / "c", workers=1)
    print("BOARDS", c.board, c.worker_board, c.board_of(c.nodes[1]))

def test_chosen_boards_are_kept(tmp_path):
    c = make_test_cluster(tmp_path / "c", workers=1, board="sim")
    assert (c.board, c.worker_board) == ("sim", "sim")

@pytest.mark.board_mode_skip(reason="needs more than the board")
def test_skipped_on_boards():
    pass

@pytest.mark.board_mode_xfail(reason="a known board-mode defect")
def test_known_failure():
    assert False
"""


# A board_mode_xfail mark whose test passes: the defect is fixed and the mark must go.
STALE_MARK = """
import pytest

@pytest.mark.board_mode_xfail(reason="fixed since")
def test_fixed_meanwhile():
    pass
"""


def run_inner(tmp_path, *args: str, env_boards: str | None = None, source: str = INNER) -> subprocess.CompletedProcess:
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(source))
    env = {k: v for k, v in os.environ.items() if k != BOARDS_ENV}
    if env_boards is not None:
        env[BOARDS_ENV] = env_boards
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-s", "-rsx", "-p", "k32.testing.pytest_plugin"]
        + ["-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_default_profile_runs_every_test(tmp_path):
    r = run_inner(tmp_path)
    out = r.stdout
    assert "BOARDS sim sim sim" in out, out
    assert "control plane sim, workers sim (default simulator profile)" in out, out
    assert "1 failed, 3 passed" in out, out  # the known board-mode failure fails elsewhere


def test_board_mode_starts_s3_control_planes_and_esp32_workers(tmp_path):
    r = run_inner(tmp_path, "--board-mode")
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    assert "BOARDS s3 esp32 esp32" in out, out
    assert "control plane s3, workers esp32 (board mode)" in out, out
    assert "2 passed, 1 skipped, 1 xfailed" in out, out
    assert "board mode: needs more than the board" in out, out
    assert "board mode: a known board-mode defect" in out, out


def test_a_stale_xfail_mark_fails_the_board_mode_run(tmp_path):
    board = run_inner(tmp_path, "--board-mode", source=STALE_MARK)
    assert board.returncode == 1, board.stdout + board.stderr
    assert "XPASS(strict)" in board.stdout and "board mode: fixed since" in board.stdout, board.stdout
    assert run_inner(tmp_path, source=STALE_MARK).returncode == 0  # the mark means nothing elsewhere


def test_other_boards_from_the_environment(tmp_path):
    assert "BOARDS s3 c3 c3" in run_inner(tmp_path, env_boards="s3,c3").stdout
    bad = run_inner(tmp_path, env_boards="s3,esp32,c3")
    assert bad.returncode != 0 and "expected CONTROL_PLANE_BOARD[,WORKER_BOARD]" in bad.stdout + bad.stderr
