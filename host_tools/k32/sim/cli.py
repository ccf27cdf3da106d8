"""`k32 sim up|down|status`: run a simulated cluster on loopback."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import click

from k32.kubeconfig import KubeconfigError

from .cluster import DEFAULT_BASE_PORT, DEFAULT_STATE_DIR, DEFAULT_WORKERS, SimCluster, SimError

STATE_OPTION = click.option(
    "--state",
    "state",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_STATE_DIR,
    show_default=True,
    help="Cluster state directory (nodes' stores, logs, sim.json).",
)


@click.group()
def sim():
    """Run a simulated Kube32 cluster (k32-node processes on loopback)."""


def _describe(st: dict) -> str:
    lines = [f"API server  {st['apiServer']}", f"kubeconfig  {st['kubeconfig']} (context {st['context']})"]
    for n in st["nodes"]:
        ports = []
        if n.get("apiPort"):
            ports.append(f"api {n['ip']}:{n['apiPort']}")
        if n.get("ingressPort"):
            ports.append(f"ingress {n['ip']}:{n['ingressPort']}")
        ports.append(f"pods {n['ip']}:{n['podPort']}")
        ports.append(f"console {n['console']}")
        state = "running" if n["running"] else "STOPPED"
        lines.append(f"{n['name']:<24} {n['role']:<14} {state:<8} " + ", ".join(ports))
    return "\n".join(lines)


class _Stop(Exception):
    pass


def _raise_stop(signum, frame):
    raise _Stop()


def _follow_logs(cluster: SimCluster) -> str | None:
    """Print every node's log lines as they come, until a signal or a node exits."""
    offsets = {n.name: 0 for n in cluster.nodes}  # from the start: the startup logs too
    while True:
        for n in cluster.nodes:
            path = cluster.log_path(n.name)
            try:
                with open(path, "rb") as f:
                    f.seek(offsets[n.name])
                    data = f.read()
            except OSError:
                continue
            complete = data.rfind(b"\n") + 1
            offsets[n.name] += complete
            for line in data[:complete].decode(errors="replace").splitlines():
                click.echo(f"[{n.name}] {line}")
        nodes = cluster.status()["nodes"]
        if not nodes:
            click.echo("cluster stopped by `k32 sim down`", err=True)
            return None
        dead = [n for n in nodes if not n["running"]]
        if dead:
            time.sleep(1.0)  # a concurrent `k32 sim down` removes sim.json after the last stop
            if not cluster.status()["nodes"]:
                click.echo("cluster stopped by `k32 sim down`", err=True)
                return None
            return f"node {dead[0]['name']} exited; see {dead[0]['log']}"
        time.sleep(0.2)


@sim.command()
@click.option("--workers", type=click.IntRange(0, 50), default=DEFAULT_WORKERS, show_default=True)
@STATE_OPTION
@click.option("--detach", is_flag=True, help="Return once every node is Ready.")
@click.option(
    "--token", default=None, help="Bearer token the API server requires (also written into the kubeconfig user)."
)
@click.option(
    "--base-port",
    type=click.IntRange(1, 65535),
    default=DEFAULT_BASE_PORT,
    show_default=True,
    help="API port; every other port moves by the same offset.",
)
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Kubeconfig to merge into (default: first path of $KUBECONFIG, else ~/.kube/config).",
)
@click.option(
    "--egress-ca",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="PEM certificates the control plane trusts for pods' https:// calls, beside the OS roots.",
)
@click.option(
    "--sd",
    "sd_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Card directory the nodes serve wasm://sd/<name> images from (<DIR>/kube32/images/<name>/).",
)
@click.option(
    "--board",
    default="sim",
    show_default=True,
    help="Board profile (boards/<name>.yaml) whose budgets the control plane runs with.",
)
@click.option("--worker-board", default=None, help="Board profile of the workers (default: the --board one).")
@click.option(
    "--m32", is_flag=True, help="Run nodes built as 32-bit programs (the boards' pointer size; build/host32-<board>)."
)
def up(workers, state, detach, token, base_port, kubeconfig, egress_ca, sd_dir, board, worker_board, m32):
    """Start a control plane and N workers; write the kubeconfig context `kube32`."""
    try:
        cluster = SimCluster(
            state,
            workers=workers,
            base_port=base_port,
            token=token,
            kubeconfig=kubeconfig,
            egress_ca=egress_ca,
            sd_dir=sd_dir,
            board=board,
            worker_board=worker_board,
            m32=m32,
        )
        previous = {s: signal.signal(s, _raise_stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            st = cluster.up(on_progress=lambda m: click.echo(m, err=True))
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
    except _Stop:
        raise click.ClickException("interrupted; every node started was stopped again")
    except (SimError, KubeconfigError) as e:
        raise click.ClickException(str(e))
    click.echo(_describe(st))
    if detach:
        click.echo(f"cluster running; stop it with: k32 sim down --state {cluster.state}")
        return
    reason = None
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, _raise_stop)
    # Said only once the handlers are in place: from this line on, a signal stops the cluster.
    click.echo("following node logs; Ctrl-C stops the cluster")
    try:
        reason = _follow_logs(cluster)
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stopped = cluster.down()
        click.echo(f"stopped {', '.join(stopped) or 'nothing'}", err=True)
    if reason:
        raise click.ClickException(reason)


@sim.command()
@STATE_OPTION
def down(state):
    """Stop every node `k32 sim up` started from this state dir (and nothing else)."""
    try:
        stopped = SimCluster.from_state(state).down()
    except SimError as e:
        raise click.ClickException(str(e))
    click.echo(f"stopped {', '.join(stopped)}" if stopped else f"no cluster running in {state}")


@sim.command()
@STATE_OPTION
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def status(state, as_json):
    """Show where every node listens and whether it runs (exit 1 if a node died)."""
    try:
        st = SimCluster.from_state(state).status()
    except SimError as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(st, indent=2))
    elif not st["nodes"]:
        click.echo(f"no cluster in {state}")
    else:
        click.echo(_describe(st))
    if st["nodes"] and not st["running"]:
        sys.exit(1)
