"""Verdicts of `k32 bench memory` against its targets (memory_targets.py) and the table it
prints."""

from __future__ import annotations

import click

from .memory_targets import TARGETS


def _kib(n: int | float) -> str:
    return f"{n / 1024:.1f} KiB"


def verdicts(r: dict) -> dict:
    """name -> {what, limit, unit, measured, ok} for every target."""
    first = r["apps"]["internalWithoutLinearBytes"]
    later = [c["apps"]["internalWithoutLinearBytes"] for c in r["churn"]]
    change = max((abs(v - first) / first for v in later), default=0.0) if first else 0.0
    over = [s for s in r["stacks"] if s["peak"] > s["budget"]]
    measured = {
        "idle_internal": r["idle"]["internalWithoutLinearBytes"],
        "apps_internal": first,
        "churn": round(change, 4),
        "configmap": r["marginal"]["configmap"]["internalBytes"],
        "stacks": len(over),
    }
    out = {}
    for name, (what, limit, unit) in TARGETS.items():
        out[name] = {
            "what": what,
            "limit": limit,
            "unit": unit,
            "measured": measured[name],
            "ok": measured[name] <= limit,
        }
    return out


def _fmt(v, unit: str) -> str:
    if unit == "bytes":
        return _kib(v)
    if unit == "ratio":
        return f"{v * 100:.1f} %"
    return str(v)


def print_table(r: dict) -> None:
    w = r["workload"]
    click.echo(f"control plane ({r['board']} profile, {r['build']}); {w['apps']} apps, {w['rounds']} rounds")
    click.echo(f"how: {r['how']}")
    click.echo("")
    click.echo(f"{'point':<34} {'internal':>12} {'w/o linear':>12} {'PSRAM':>12} {'linear':>12}")

    def row(label: str, d: dict) -> None:
        click.echo(
            f"{label:<34} {_kib(d['internalBytes']):>12} {_kib(d['internalWithoutLinearBytes']):>12} "
            f"{_kib(d['psramBytes']):>12} {_kib(d['podLinearBytes']):>12}" + ("" if d["quiet"] else "  (not quiet)")
        )

    row("idle", r["idle"])
    row(f"{w['apps']} apps", r["apps"])
    for i, c in enumerate(r["churn"], 1):
        row(f"round {i}: apps deleted", c["deleted"])
        row(f"round {i}: apps re-applied", c["apps"])
    click.echo("")
    click.echo(f"{'marginal cost of one':<34} {'internal':>12} {'PSRAM':>12} {'linear':>12}")
    for kind, m in r["marginal"].items():
        label = f"{kind} (slope over {m['objects']})"
        click.echo(
            f"{label:<34} {_kib(m['internalBytes']):>12} {_kib(m['psramBytes']):>12} {_kib(m['linearBytes']):>12}"
        )
    d = r["deployment"]
    click.echo("")
    click.echo(
        f"Deployment of {d['replicas']}: {_kib(d['internalBytes'])} internal with its pods, "
        f"{_kib(d['beyondPodsInternalBytes'])} beyond {d['replicas']} bare pods; "
        f"{_kib(d['afterDeleteInternalBytes'])} left after deleting it"
    )
    m = r["metricsApi"]
    click.echo(f"metrics API: {_kib(m['retainedInternalBytes'])} kept after {m['requests']} requests")
    click.echo("")
    click.echo(f"{'thread':<16} {'budget':>10} {'peak':>10} {'threads':>8}")
    for s in sorted(r["stacks"], key=lambda s: s["name"]):
        flag = "  OVER" if s["peak"] > s["budget"] else ""
        click.echo(f"{s['name']:<16} {s['budget']:>10} {s['peak']:>10} {s['threads']:>8}{flag}")
    click.echo("")
    for v in r["verdicts"].values():
        mark = "ok  " if v["ok"] else "MISS"
        click.echo(f"{mark} {v['what']}: {_fmt(v['measured'], v['unit'])} (target ≤ {_fmt(v['limit'], v['unit'])})")
