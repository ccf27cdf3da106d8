"""Verdicts of `k32 bench memory` against its targets (memory_targets.py) and the table it
prints."""

from __future__ import annotations

import click

from .memory_targets import CONTROLLER_THREADS, METRICS_THREADS, TARGETS


def _kib(n: int | float) -> str:
    return f"{n / 1024:.1f} KiB"


def _measured(r: dict) -> dict:
    """Each target's figure, or None where the run ended before it was measured."""
    first = r.get("apps", {}).get("internalWithoutLinearBytes")
    churn = r.get("churn")
    change = None
    # A run without rounds (--rounds 0) has not measured churn: not measured, so missed, not 0 %.
    if first and churn and len(churn) == r["workload"]["rounds"]:
        change = round(max(abs(c["apps"]["internalWithoutLinearBytes"] - first) / first for c in churn), 4)
    stacks = r.get("stacks")
    d, m = r.get("deployment", {}), r.get("metricsStore", {})
    return {
        "idle_internal": r.get("idle", {}).get("internalWithoutLinearBytes"),
        "apps_internal": first,
        "churn": change,
        "configmap": r.get("marginal", {}).get("configmap", {}).get("internalBytes"),
        "deployment": d.get("beyondPodsInternalBytes"),
        "rollout": d.get("rolloutInternalBytes"),
        "metrics_node": m.get("perNodeInternalBytes"),
        "metrics_pod": m.get("perPodInternalBytes"),
        "controllers_stack": _stack_share(stacks, CONTROLLER_THREADS),
        "metrics_stack": _stack_share(stacks, METRICS_THREADS),
        "stacks": None if stacks is None else sum(1 for s in stacks if s["peak"] > s["budget"]),
    }


def _stack_share(stacks: list | None, names: tuple) -> float | None:
    """The largest peak / budget among the threads of these kinds; None when none ran."""
    rows = [s for s in stacks or [] if s["name"] in names]
    return round(max(s["peak"] / s["budget"] for s in rows), 4) if rows else None


def verdicts(r: dict) -> dict:
    """name -> {what, limit, unit, measured, ok} for every target; one not measured is missed."""
    measured = _measured(r)
    out = {}
    for name, (what, limit, unit) in TARGETS.items():
        m = measured[name]
        out[name] = {"what": what, "limit": limit, "unit": unit, "measured": m, "ok": m is not None and m <= limit}
    return out


def _fmt(v, unit: str) -> str:
    if v is None:
        return "not measured"
    if unit == "bytes":
        return _kib(v)
    if unit == "ratio":
        return f"{v * 100:.1f} %"
    return str(v)


def _point_rows(r: dict) -> None:
    w = r["workload"]
    click.echo(
        f"{'point':<30} {'internal':>11} {'PSRAM':>11} {'linear':>11} {'pods bulk':>11} {'PSRAM else':>11} "
        f"{'spilled':>11} {'w/o linear':>11}"
    )

    def row(label: str, d: dict) -> None:
        click.echo(
            f"{label:<30} {_kib(d['internalBytes']):>11} {_kib(d['psramBytes']):>11} "
            f"{_kib(d['podLinearBytes']):>11} {_kib(d['podBulkBytes']):>11} {_kib(d['psramOtherBytes']):>11} "
            f"{_kib(d['spilledBytes']):>11} {_kib(d['internalWithoutLinearBytes']):>11}"
            + ("" if d["quiet"] else "  (not quiet)")
        )

    if "idleAtStart" in r:
        row("idle at start", r["idleAtStart"])
    if "idle" in r:
        row("idle, watch history full", r["idle"])
    if "apps" in r:
        row(f"{w['apps']} apps", r["apps"])
    if "storeBytes" in r.get("apps", {}):
        a = r["apps"]
        click.echo(f"{'':<30} their objects in the store: {_kib(a['storeBytes'])} of {_kib(a['storeMaxBytes'])}")
    for i, c in enumerate(r.get("churn", []), 1):
        row(f"round {i}: apps deleted", c["deleted"])
        row(f"round {i}: apps re-applied", c["apps"])


def _cost_rows(r: dict) -> None:
    if r.get("marginal"):
        click.echo("")
        click.echo(f"{'marginal cost of one':<30} {'internal':>11} {'PSRAM':>11} {'linear':>11} {'w/o linear':>11}")
        for kind, m in r["marginal"].items():
            label = f"{kind} (slope over {m['objects']})"
            click.echo(
                f"{label:<30} {_kib(m['heapInternalBytes']):>11} {_kib(m['psramBytes']):>11} "
                f"{_kib(m['linearBytes']):>11} {_kib(m['internalBytes']):>11}"
            )
    if "deployment" in r:
        d = r["deployment"]
        click.echo("")
        lo, hi = d["beyondPodsInternalRangeBytes"]
        rlo, rhi = d["rolloutInternalRangeBytes"]
        click.echo(
            f"Deployment of {d['replicas']} (median of {len(d['cycles'])}, Events and watch history full and left out): "
            f"{_kib(d['internalBytes'])} w/o linear with its pods, "
            f"{_kib(d['beyondPodsInternalBytes'])} beyond {d['replicas']} bare pods ({_kib(lo)} … {_kib(hi)}); "
            f"(a bare pod {_kib(d['podInternalBytes'])}); {_kib(d['afterDeleteInternalBytes'])} left after deleting it"
        )
        click.echo(
            f"one rollout (set image): {_kib(d['rolloutInternalBytes'])} more ({_kib(rlo)} … {_kib(rhi)}), "
            "the old ReplicaSet kept"
        )
    if "metricsApi" in r:
        m = r["metricsApi"]
        click.echo(f"metrics API: {_kib(m['retainedInternalBytes'])} kept after {m['requests']} requests")
    if "metricsStore" in r:
        m = r["metricsStore"]
        click.echo(
            f"metrics records: {m['perNodeInternalBytes']} B a node (slope over {m['nodes']}), "
            f"{m['perPodInternalBytes']} B a pod (slope over {m['pods']})"
        )


def print_table(r: dict) -> None:
    w = r["workload"]
    click.echo(f"control plane ({r['board']} profile, {r['build']}); {w['apps']} apps, {w['rounds']} rounds")
    click.echo(f"how: {r['how']}")
    click.echo("")
    _point_rows(r)
    _cost_rows(r)
    if "stacks" in r:
        click.echo("")
        click.echo(f"{'thread':<16} {'budget':>10} {'peak':>10} {'threads':>8}")
        for s in sorted(r["stacks"], key=lambda s: s["name"]):
            flag = "  OVER" if s["peak"] > s["budget"] else ""
            click.echo(f"{s['name']:<16} {s['budget']:>10} {s['peak']:>10} {s['threads']:>8}{flag}")
    if "error" in r:
        click.echo("")
        click.echo(f"the run ended early: {r['error']}")
        for line in r.get("nodeLogTail", []):
            click.echo(f"  node log: {line}")
    click.echo("")
    for v in r["verdicts"].values():
        mark = "ok  " if v["ok"] else "MISS"
        click.echo(f"{mark} {v['what']}: {_fmt(v['measured'], v['unit'])} (target ≤ {_fmt(v['limit'], v['unit'])})")
