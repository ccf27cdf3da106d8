"""`k32 bench pods`: the pod runtime on a fresh simulated cluster (1 control plane + 1 worker).

Measures
  requests/s, p50/p99   POST /echo/hello to the pod server with X-Kube32-Pod: default/echo
                        (examples/echo.yaml on the control plane: in-process k32_handle),
                        sequential on one keep-alive connection
  instructions/request  the same requests with the control plane under callgrind (idle
                        instructions of an equally long interval subtracted)
  pod start latency     create (API POST) → the pod server answers the new echo pod
  RAM per pod           the control plane's heap growth per extra running echo pod
                        (console STATUS heapBytes), minus its linear memory"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import click

from k32 import REPO_ROOT
from k32.httpclient import HttpClient, HttpError

from .api import BenchError, percentile
from .ingress import Callgrind, _bench_cluster

ECHO_EXAMPLE = REPO_ROOT / "examples" / "echo.yaml"
WASM_PAGE = 65536
READY_TIMEOUT_S = 30.0


def _cp(sim) -> dict:
    return next(n for n in sim.status()["nodes"] if n["role"] == "control-plane")


class PodClient:
    """Keep-alive requests to one node's pod server for one pod."""

    def __init__(self, ip: str, port: int, pod: str):
        self.pod = pod
        self.http = HttpClient(f"http://{ip}:{port}", headers={"X-Kube32-Pod": pod}, timeout=10)

    def post(self, path: str = "/echo/hello", body: bytes = b"hello") -> int:
        """The answer's status; 0 when there was none (refused, reset, timed out)."""
        try:
            return self.http.request("POST", path, body).status
        except HttpError:
            return 0

    def close(self):
        self.http.close()


def _echo_pod(name: str, node: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "echo",
                    "image": "wasm://embedded/echo",
                    "env": [{"name": "GREETING", "value": "bench"}],
                    "resources": {"limits": {"memory": "64Ki"}},
                }
            ],
        },
    }


def _wait_answers(client: PodClient, timeout: float) -> float | None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if client.post() == 200:
            return time.perf_counter()
        time.sleep(0.005)
    return None


def _heap(sim, node: str) -> int:
    return int(sim.console(node, "STATUS")["heapBytes"])


def _start_cluster(workdir: Path, callgrind_out: Path | None):
    from k32.sim.cluster import SimError

    state = workdir / ("sim-cg" if callgrind_out else "sim")
    state.mkdir()
    sim = _bench_cluster(state, callgrind_out)
    try:
        sim.up()
    except SimError as e:
        sim.down()
        raise BenchError(str(e))
    proc = sim.kubectl("apply", "-f", str(ECHO_EXAMPLE))
    if proc.returncode != 0:
        sim.down()
        raise BenchError(f"kubectl apply -f examples/echo.yaml: {proc.stderr.strip()}")
    cp = _cp(sim)
    client = PodClient(cp["ip"], cp["podPort"], "default/echo")
    if _wait_answers(client, READY_TIMEOUT_S) is None:
        client.close()
        sim.down()
        raise BenchError(f"the echo pod did not answer within {READY_TIMEOUT_S:.0f} s")
    return sim, cp, client


def run(requests: int, starts: int, callgrind_requests: int, workdir: Path, progress=lambda m: None) -> dict:
    progress("starting a simulated cluster …")
    sim, cp, client = _start_cluster(workdir, None)
    result: dict = {"requests": requests, "starts": starts, "callgrindRequests": callgrind_requests}
    try:
        progress(f"{requests} requests to default/echo …")
        lat, errors = [], 0
        t0 = time.perf_counter()
        for _ in range(requests):
            s = time.perf_counter()
            if client.post() != 200:
                errors += 1
            lat.append((time.perf_counter() - s) * 1000)
        elapsed = time.perf_counter() - t0
        result.update(
            {
                "errors": errors,
                "requestsPerSec": round(requests / elapsed, 1),
                "p50_ms": round(percentile(lat, 50), 3),
                "p99_ms": round(percentile(lat, 99), 3),
            }
        )

        progress(f"starting {starts} pods one at a time …")
        heap_before = _heap(sim, cp["name"])
        samples = []
        for i in range(starts):
            name = f"bench-start-{i}"
            c = PodClient(cp["ip"], cp["podPort"], f"default/{name}")
            t = time.perf_counter()
            status, _, body = sim.request("POST", "/api/v1/namespaces/default/pods", _echo_pod(name, cp["name"]))
            if status != 201:
                raise BenchError(f"creating {name}: HTTP {status} {body[:200]!r}")
            done = _wait_answers(c, READY_TIMEOUT_S)
            c.close()
            if done is None:
                raise BenchError(f"{name} did not answer within {READY_TIMEOUT_S:.0f} s")
            samples.append((done - t) * 1000)
        time.sleep(0.5)  # let status writes and their buffers settle
        heap_after = _heap(sim, cp["name"])
        per_pod = (heap_after - heap_before) / starts if starts else 0
        result["startLatencyMs"] = {
            "median": round(statistics.median(samples), 1) if samples else None,
            "max": round(max(samples), 1) if samples else None,
            "samples": [round(s, 1) for s in samples],
        }
        result["linearMemoryBytes"] = WASM_PAGE
        result["ramPerPodBytes"] = round(per_pod - WASM_PAGE) if starts else None
    finally:
        client.close()
        sim.down()

    result["instructionsPerRequest"] = None
    result["instructions"] = "skipped (--callgrind-requests 0)"
    if callgrind_requests:
        if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
            result["instructions"] = "unavailable: valgrind is not installed"
        else:
            progress("instructions: control plane under callgrind …")
            sim, cp, client = _start_cluster(workdir, workdir / "callgrind.out")
            try:

                def burst():
                    for _ in range(callgrind_requests):
                        client.post()

                result["instructionsPerRequest"] = Callgrind(int(cp["pid"]), workdir / "callgrind.out").per_request(
                    burst, callgrind_requests
                )
                result["instructions"] = "ok"
            finally:
                client.close()
                sim.down()
    return result


def _print(r: dict) -> None:
    click.echo(
        f"pod server → in-process echo: {r['requestsPerSec']} req/s, p50 {r['p50_ms']} ms, "
        f"p99 {r['p99_ms']} ms ({r['requests']} requests, {r['errors']} errors)"
    )
    ipr = r["instructionsPerRequest"]
    click.echo(f"instructions per request: {ipr if ipr is not None else r['instructions']}")
    s = r["startLatencyMs"]
    click.echo(f"pod start latency: median {s['median']} ms, max {s['max']} ms over {r['starts']} pods")
    click.echo(
        f"RAM per pod beyond linear memory: {r['ramPerPodBytes']} bytes (linear memory {r['linearMemoryBytes']} bytes)"
    )


@click.command("pods")
@click.option("--requests", default=2000, show_default=True, help="Requests to the echo pod.")
@click.option("--starts", default=5, show_default=True, help="Pods started for the latency/RAM figures.")
@click.option(
    "--callgrind-requests",
    default=200,
    show_default=True,
    help="Requests counted under callgrind (0 skips the instruction count).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def pods(requests, starts, callgrind_requests, as_json):
    """Pod runtime: requests/s and instructions per request (pod server → in-process echo),
    pod start latency, RAM per pod beyond linear memory."""
    if requests < 1 or starts < 1 or callgrind_requests < 0:
        raise click.ClickException("--requests and --starts must be ≥ 1, --callgrind-requests ≥ 0")
    with tempfile.TemporaryDirectory(prefix="k32-bench-pods-") as tmp:
        try:
            result = run(
                requests,
                starts,
                callgrind_requests,
                Path(tmp),
                progress=(lambda m: None) if as_json else (lambda m: click.echo(m, err=True)),
            )
        except BenchError as e:
            raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        _print(result)
