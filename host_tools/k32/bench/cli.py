"""`k32 bench …`. Other areas add their benchmarks with `bench.add_command(...)`."""

from __future__ import annotations

import json
import tempfile

import click

from k32.mcu.cli import size as size_bench

from . import api as api_bench
from .calls import calls as calls_bench
from .ingress import ingress as ingress_bench
from .memory_cli import memory_cmd as memory_bench
from .pods import pods as pods_bench
from .wasm import wasm as wasm_bench
from .wasm_hot import wasm_hot


@click.group()
def bench():
    """Benchmarks; each prints a summary, or JSON with --json."""


bench.add_command(wasm_bench)
bench.add_command(wasm_hot)
bench.add_command(ingress_bench)
bench.add_command(pods_bench)
bench.add_command(calls_bench)
bench.add_command(size_bench)
bench.add_command(memory_bench)


def _print_api(result: dict) -> None:
    click.echo(
        f"{result['count']} ConfigMaps ({result['dataBytes']} bytes of data each) in namespace {result['namespace']}"
    )
    for key in ("apply", "list"):
        r = result[key]
        click.echo(
            f"  {key:<6} p50 {r['p50_ms']:8.2f} ms   p99 {r['p99_ms']:8.2f} ms   "
            f"mean {r['mean_ms']:8.2f} ms   ({r['n']} requests)"
        )
    heap = result["heapBytes"]
    if heap["after"] is None:
        click.echo("  heap   not reported (no k32_heap_bytes_in_use in /metrics, no console)")
    else:
        click.echo(
            f"  heap   {heap['before']} -> {heap['after']} bytes ({heap['delta']:+d}, {heap['perObject']} per object)"
        )


@bench.command("api")
@click.option("--count", type=click.IntRange(1, 100000), default=100, show_default=True, help="ConfigMaps to create.")
@click.option(
    "--list-rounds", type=click.IntRange(1, 10000), default=20, show_default=True, help="How many times to list them."
)
@click.option(
    "--server",
    default=None,
    help="Benchmark this running API server (http://IP:PORT) instead of a fresh throw-away simulated cluster.",
)
@click.option(
    "--data-bytes",
    type=click.IntRange(1, 262144),
    default=64,
    show_default=True,
    help="Bytes of values in each ConfigMap's data (1024: the 1 KB ConfigMap of the memory targets).",
)
@click.option("--token", default=None, help="Bearer token for --server (or the fresh cluster).")
@click.option(
    "--console", "console_address", default=None, help="IP:PORT of --server's console, a fallback source of heapBytes."
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def api_cmd(count, list_rounds, data_bytes, server, token, console_address, as_json):
    """API apply/list latency (p50/p99) and control-plane heap for N ConfigMaps."""
    try:
        if server:
            client = api_bench.Api(server, token)
            try:
                result = api_bench.run(
                    client, count, list_rounds, console_address=console_address, data_bytes=data_bytes
                )
                client.request("DELETE", f"/api/v1/namespaces/{result['namespace']}")
            finally:
                client.close()
        else:
            result = _on_fresh_cluster(count, list_rounds, token, data_bytes)
    except api_bench.BenchError as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        _print_api(result)


def _on_fresh_cluster(count: int, list_rounds: int, token: str | None, data_bytes: int = 64) -> dict:
    from k32.sim.cluster import SimError
    from k32.testing.clusters import make_test_cluster

    with tempfile.TemporaryDirectory(prefix="k32-bench-") as tmp:
        cluster = make_test_cluster(tmp, workers=0, token=token)
        try:
            cluster.up()
        except SimError as e:
            raise api_bench.BenchError(str(e))
        client = api_bench.Api(cluster.api_url, token, ssl_context=cluster.ssl_context())
        try:
            result = api_bench.run(
                client, count, list_rounds, console_address=cluster.nodes[0].console, data_bytes=data_bytes
            )
        finally:
            client.close()
            cluster.down()
        result["cluster"] = "fresh simulated control plane (no workers)"
        return result
