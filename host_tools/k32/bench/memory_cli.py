"""The `k32 bench memory` command: a throw-away 32-bit control plane in the board's profile,
the measurement (memory.py), the verdicts and the table or JSON (memory_report.py)."""

from __future__ import annotations

import json
import sys
import tempfile

import click

from . import memory
from .memory_report import print_table, verdicts
from .memory_targets import APPS, BOARD, ROUNDS

LOG_TAIL_LINES = 8


def _measure(apps: int, rounds: int, progress) -> dict:
    from k32.boards.profile import load_board
    from k32.httpclient import HttpClient
    from k32.sim.cluster import SimError
    from k32.testing.clusters import make_test_cluster

    with tempfile.TemporaryDirectory(prefix="k32-bench-memory-") as tmp:
        cluster = make_test_cluster(tmp, workers=0, board=BOARD, m32=True)
        try:
            cluster.up(on_progress=progress)
        except SimError as e:
            raise memory.BenchError(str(e)) from None
        try:
            cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
            api = HttpClient(cluster.api_url, cluster.ssl_context(), timeout=memory.API_TIMEOUT_S)
            budgets = load_board(BOARD).budgets
            bench = memory.Bench(
                api,
                cluster.nodes[0].console,
                (cp["ip"], cp["ingressPort"]),
                budgets["watch_history"]["bytes"],
                progress,
                events_max=budgets["events_kept"]["bytes"],
                store_max=budgets["store_total_max"]["bytes"],
            )
            result = memory.run(bench, apps, rounds)
            if "error" in result:
                # Why the node stopped, when it did (an allocation past its board's heap).
                log = cluster.log_path(cluster.nodes[0].name).read_text(errors="replace")
                result["nodeLogTail"] = log.splitlines()[-LOG_TAIL_LINES:]
        finally:
            cluster.down()
    result["board"] = BOARD
    result["build"] = "32-bit k32-node"
    return result


@click.command("memory")
@click.option("--apps", type=click.IntRange(1, 14), default=APPS, show_default=True, help="Apps to apply.")
@click.option(
    "--rounds", type=click.IntRange(0, 100), default=ROUNDS, show_default=True, help="Delete/re-apply rounds."
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def memory_cmd(apps, rounds, as_json):
    """The control plane's heap per region on the board's 32-bit build: idle, with apps, under
    churn, per object, controllers and metrics, thread stacks; exit 1 when a target is missed."""
    progress = (lambda m: click.echo(m, err=True)) if not as_json else None
    try:
        result = _measure(apps, rounds, progress)
    except memory.BenchError as e:
        raise click.ClickException(str(e))
    result["verdicts"] = verdicts(result)
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        print_table(result)
    if not all(v["ok"] for v in result["verdicts"].values()):
        sys.exit(1)
