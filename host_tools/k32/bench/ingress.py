"""`k32 bench ingress`: the Ingress controller under load, side by side with nginx.

Cases, each on a fresh simulated cluster (1 control plane + 1 worker):
  static        GET /cluster/app.js, a StaticBundle file (examples/cluster-ui.yaml)
  echo-local    POST /echo/hello to examples/echo.yaml's pod on the control plane (in-process)
  echo-worker   POST /echo-worker/hello to the same pod placed on the worker (HTTP relay)
  nginx-static  the same app.js bytes from Debian nginx on loopback, same load generator
An echo case whose pod cannot run (no examples/echo.yaml, no kubelet yet) is reported as
"unavailable: <reason>"; the static rows are measured regardless.

Load: wrk (Debian) when installed, else a Python keep-alive client. Instructions/request:
the control plane (or nginx) runs under `valgrind --tool=callgrind` with instrumentation off
until the measured requests, and the instructions of an idle interval of the same length
are subtracted, so timers and heartbeats are not charged to requests. That is done in
several rounds and the median round is the figure (the spread is reported too): a
background burst inside one round's window moves that round only."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import click

from k32 import REPO_ROOT, httpclient
from k32.httpclient import HttpClient, HttpError

from .api import BenchError, percentile

BUNDLE_FILE = REPO_ROOT / "images" / "web" / "cluster" / "app.js"
CLUSTER_UI = REPO_ROOT / "examples" / "cluster-ui.yaml"
ECHO_EXAMPLE = REPO_ROOT / "examples" / "echo.yaml"
STATIC_PATH = "/cluster/app.js"
ECHO_PATH = "/echo/hello"
WORKER_PREFIX = "/echo-worker"
WORKER_NODE = "kube32-worker-1"
ECHO_BODY = b"hello"
DEFAULT_BACKEND_TIMEOUT_S = 60.0
CALLGRIND_START_TIMEOUT_S = 120.0
CASES = ("static", "echo-local", "echo-worker", "nginx-static")
# Instructions per request the request path should stay within (control plane, callgrind).
TARGET_INSTRUCTIONS = {"static": 15_000, "echo-local": 30_000}


# ---- load generators ---------------------------------------------------------------------


def _python_load(
    host: str, port: int, method: str, path: str, body: bytes | None, requests: int, connections: int
) -> dict:
    """`requests` requests over `connections` keep-alive connections; every latency measured."""
    latencies: list[float] = []
    errors = [0]
    left = [requests]
    lock = threading.Lock()

    def worker():
        with HttpClient(f"http://{host}:{port}", timeout=10) as client:
            while True:
                with lock:
                    if left[0] == 0:
                        break
                    left[0] -= 1
                t0 = time.perf_counter()
                try:
                    ok = 200 <= client.request(method, path, body).status < 300
                except HttpError:
                    ok = False
                dt = time.perf_counter() - t0
                with lock:
                    if ok:
                        latencies.append(dt)
                    else:
                        errors[0] += 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    if not latencies:
        raise BenchError(f"{method} http://{host}:{port}{path}: no successful request ({errors[0]} errors)")
    ms = [s * 1000 for s in latencies]
    return {
        "generator": "python",
        "requests": len(ms),
        "errors": errors[0],
        "requestsPerSec": round(len(ms) / elapsed, 1),
        "p50_ms": round(percentile(ms, 50), 3),
        "p99_ms": round(percentile(ms, 99), 3),
    }


_WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def _wrk_ms(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", text)
    if not m:
        raise BenchError(f"wrk: unreadable latency {text!r}")
    return float(m.group(1)) * _WRK_UNITS[m.group(2)]


def _wrk_load(
    host: str, port: int, method: str, path: str, body: bytes | None, duration: float, connections: int, workdir: Path
) -> dict:
    script = workdir / "request.lua"
    script.write_text(f"wrk.method = {json.dumps(method)}\nwrk.body = {json.dumps((body or b'').decode())}\n")
    argv = [
        "wrk",
        "--latency",
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "-s",
        str(script),
        f"http://{host}:{port}{path}",
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    out = proc.stdout
    if proc.returncode != 0:
        raise BenchError(f"wrk exited with {proc.returncode}: {proc.stderr.strip() or out.strip()}")
    rps = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    total = re.search(r"([0-9]+) requests in", out)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    if not (rps and total and p50 and p99):
        raise BenchError(f"wrk: unexpected output:\n{out}")
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+([0-9]+)", out)
    sock = re.search(
        r"Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), "
        r"timeout ([0-9]+)",
        out,
    )
    detail = {"non2xx": int(non2xx.group(1)) if non2xx else 0}
    if sock:
        detail.update(zip(("connect", "read", "write", "timeout"), map(int, sock.groups())))
    return {
        "generator": "wrk",
        "requests": int(total.group(1)),
        "errors": sum(detail.values()),
        "errorDetail": detail,
        "requestsPerSec": float(rps.group(1)),
        "p50_ms": round(_wrk_ms(p50.group(1)), 3),
        "p99_ms": round(_wrk_ms(p99.group(1)), 3),
    }


class Load:
    def __init__(self, generator: str, requests: int, duration: float, connections: int, workdir: Path):
        self.generator, self.requests, self.duration = generator, requests, duration
        self.connections, self.workdir = connections, workdir

    def run(self, host: str, port: int, method: str, path: str, body: bytes | None) -> dict:
        if self.generator == "wrk":
            return _wrk_load(host, port, method, path, body, self.duration, self.connections, self.workdir)
        return _python_load(host, port, method, path, body, self.requests, self.connections)


# ---- callgrind -----------------------------------------------------------------------------


class Callgrind:
    """Counts the instructions a process (started under callgrind, instrumentation off)
    executes while `fn` runs, minus what it executes idle for as long."""

    def __init__(self, pid: int, out_file: Path):
        self.pid, self.out_file = pid, out_file

    def _ctl(self, *args: str) -> None:
        proc = subprocess.run(["callgrind_control", *args, str(self.pid)], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise BenchError(f"callgrind_control {' '.join(args)}: {proc.stderr.strip()}")

    def _dumps(self) -> list[Path]:
        return [
            p
            for p in self.out_file.parent.glob(self.out_file.name + "*")
            if re.fullmatch(r"(\.[0-9]+)?", p.name[len(self.out_file.name) :])
        ]

    def _count(self, fn) -> tuple[int, float]:
        for old in self._dumps():
            old.unlink()
        self._ctl("--instr=on")
        self._ctl("--zero")
        t0 = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - t0
        self._ctl("--dump")
        self._ctl("--instr=off")
        total = 0
        for dump in self._dumps():
            for line in dump.read_text(errors="replace").splitlines():
                if line.startswith(("summary:", "totals:")):
                    total = max(total, int(line.split()[1]))
        if not total:
            raise BenchError(f"callgrind dump {self.out_file}* has no totals line")
        return total, elapsed

    def samples(self, fn, requests: int, rounds: int = 1) -> list[int]:
        """Instructions per request of each round: the busy count minus an idle count of the
        same length taken right after it."""
        out = []
        for _ in range(rounds):
            busy, elapsed = self._count(fn)
            # The background (heartbeats, watches, the kubelet's sync, lease renewals) comes
            # in bursts that land in either window; with one idle sample per round a burst
            # moves that round up or down, and the median of the rounds leaves it out. A
            # single round keeps the quieter of two idle samples, so that one burst in the
            # idle window cannot cancel the whole count.
            idle = min(self._count(lambda e=elapsed: time.sleep(e))[0] for _ in range(1 if rounds > 1 else 2))
            out.append(max(0, round((busy - idle) / requests)))
        return out

    def per_request(self, fn, requests: int, rounds: int = 1) -> int:
        """The median round: a background burst inside one busy window moves one round, not
        the figure."""
        return round(statistics.median(self.samples(fn, requests, rounds)))


def _callgrind_argv(out_file: Path) -> list[str]:
    return [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out_file}",
        f"--log-file={out_file}.log",
    ]


def _sequential(host: str, port: int, method: str, path: str, body: bytes | None, n: int):
    def run():
        _python_load(host, port, method, path, body, n, 1)

    return run


# ---- the systems under test ------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """Debian nginx serving BUNDLE_FILE on loopback: one worker, no logs, keep-alive."""

    def __init__(self, workdir: Path, callgrind_out: Path | None = None):
        binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
        if binary is None:
            raise BenchError("nginx is not installed (Debian package nginx)")
        self.dir = workdir / ("nginx-cg" if callgrind_out else "nginx")
        root = self.dir / "root" / "cluster"
        root.mkdir(parents=True)
        shutil.copyfile(BUNDLE_FILE, root / BUNDLE_FILE.name)
        self.port = _free_port()
        # master_process off: the single process that serves is the one callgrind watches.
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""daemon off;
master_process off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  types {{ text/javascript js; }}
  client_body_temp_path {self.dir}/tmp;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.dir}/root;
    keepalive_requests 1000000;
    location / {{ add_header Cache-Control "public, max-age=3600"; }}
  }}
}}
""")
        argv = [binary, "-p", str(self.dir), "-c", str(conf)]
        if callgrind_out:
            argv = _callgrind_argv(callgrind_out) + argv
        self.log = open(self.dir / "stderr.log", "wb")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, start_new_session=True
        )
        deadline = time.monotonic() + (CALLGRIND_START_TIMEOUT_S if callgrind_out else 10)
        while _answers("127.0.0.1", self.port, "GET", STATIC_PATH, None) is not None:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise BenchError(f"nginx did not come up on 127.0.0.1:{self.port}; see {self.dir}/error.log")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _answers(host: str, port: int, method: str, path: str, body: bytes | None) -> str | None:
    """None when the request gets a 2xx, else a short description of what came back."""
    try:
        resp = httpclient.request(f"http://{host}:{port}", method, path, body)
    except HttpError as e:
        return f"{method} {path}: {e}"
    payload = resp.body
    if 200 <= resp.status < 300:
        return None
    return f"{method} {path}: {resp.status} {payload[:120].decode(errors='replace').strip()}"


def _wait_answers(host, port, method, path, body, timeout) -> str | None:
    deadline = time.monotonic() + timeout
    while True:
        problem = _answers(host, port, method, path, body)
        if problem is None or time.monotonic() > deadline:
            return problem
        time.sleep(0.5)


def worker_echo_manifest(example_text: str) -> str:
    """examples/echo.yaml's Pod/Service/Ingress renamed echo-worker, the pod pinned to a
    worker, so the ingress relays to it over HTTP instead of calling it in-process."""
    import yaml

    docs = [d for d in yaml.safe_load_all(example_text) if d]
    out = []
    for doc in docs:
        doc["metadata"]["name"] = "echo-worker"
        if doc["kind"] == "Pod":
            doc["metadata"]["labels"] = {"app": "echo-worker"}
            doc["spec"].pop("nodeSelector", None)
            doc["spec"]["nodeName"] = WORKER_NODE
        elif doc["kind"] == "Service":
            doc["spec"]["selector"] = {"app": "echo-worker"}
        elif doc["kind"] == "Ingress":
            doc["metadata"].pop("annotations", None)
            for rule in doc["spec"]["rules"]:
                for p in rule["http"]["paths"]:
                    p["path"] = WORKER_PREFIX
                    p["backend"]["service"]["name"] = "echo-worker"
        out.append(doc)
    return yaml.safe_dump_all(out, sort_keys=False)


class Cluster:
    """A fresh simulated cluster with the bench's routes applied; `unavailable` maps an echo
    case to the reason it cannot be measured."""

    def __init__(
        self,
        workdir: Path,
        backend_timeout: float,
        callgrind_out: Path | None = None,
        echo_cases: tuple[str, ...] = ("echo-local", "echo-worker"),
    ):
        from k32.sim.cluster import SimError

        state = workdir / ("sim-cg" if callgrind_out else "sim")
        state.mkdir()
        self.sim = _bench_cluster(state, callgrind_out)
        try:
            self.sim.up()
        except SimError as e:
            self.sim.down()
            raise BenchError(str(e))
        cp = next(n for n in self.sim.status()["nodes"] if n["role"] == "control-plane")
        self.host, self.port, self.cp_pid = cp["ip"], cp["ingressPort"], int(cp["pid"])
        self.unavailable: dict[str, str] = {}
        self._apply(CLUSTER_UI.read_text())
        problem = _wait_answers(self.host, self.port, "GET", STATIC_PATH, None, backend_timeout)
        if problem:
            self.down()
            raise BenchError(f"static bundle route never answered: {problem}")
        if not ECHO_EXAMPLE.exists():
            reason = f"{ECHO_EXAMPLE.relative_to(REPO_ROOT)} does not exist (the echo pod example)"
            self.unavailable = {"echo-local": reason, "echo-worker": reason}
            return
        example = ECHO_EXAMPLE.read_text()
        waiting = {}
        for case, manifest in (("echo-local", example), ("echo-worker", worker_echo_manifest(example))):
            if case not in echo_cases:
                self.unavailable[case] = "not measured in the first run"
                continue
            problem = self._apply(manifest)
            if problem:
                self.unavailable[case] = problem
            else:
                waiting[case] = REQUESTS[case]
        # Both pods start at once; one deadline for the two of them.
        deadline = time.monotonic() + backend_timeout
        while waiting:
            for case, (method, path, body) in list(waiting.items()):
                problem = _answers(self.host, self.port, method, path, body)
                if problem is None:
                    del waiting[case]
                elif time.monotonic() > deadline:
                    self.unavailable[case] = f"no 2xx within {backend_timeout:.0f} s ({problem})"
                    del waiting[case]
            time.sleep(0.5 if waiting else 0)

    def _apply(self, manifest: str) -> str | None:
        proc = self.sim.kubectl("apply", "-f", "-", input=manifest)
        return None if proc.returncode == 0 else f"kubectl apply: {proc.stderr.strip()}"

    def down(self) -> None:
        self.sim.down()


def _bench_cluster(state: Path, callgrind_out: Path | None):
    """A throw-away 1 + 1 cluster; with callgrind_out its control plane runs under callgrind
    (the worker at full speed) and gets the time valgrind needs to print K32_READY."""
    from k32.build.firmware import FirmwareBuildError, ensure_firmware
    from k32.sim.cluster import SimCluster, find_free_base_port

    class SlowStart(SimCluster):
        def _wait_ready(self, spec, timeout=CALLGRIND_START_TIMEOUT_S):
            return super()._wait_ready(spec, timeout)

    if not callgrind_out:
        return SimCluster(
            state, workers=1, base_port=find_free_base_port(1), kubeconfig=state / "kubeconfig", die_with_parent=True
        )
    try:
        real = ensure_firmware()
    except FirmwareBuildError as e:
        raise BenchError(f"firmware build failed: {e}")
    wrapper = state / "k32-node-callgrind.sh"
    vg = " ".join(_callgrind_argv(callgrind_out))
    wrapper.write_text(
        f'#!/bin/sh\ncase " $* " in *" control-plane "*) exec {vg} {real} "$@";; esac\nexec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    return SlowStart(
        state,
        workers=1,
        base_port=find_free_base_port(1),
        kubeconfig=state / "kubeconfig",
        die_with_parent=True,
        binary=wrapper,
    )


# ---- the bench -----------------------------------------------------------------------------

REQUESTS = {
    "static": ("GET", STATIC_PATH, None),
    "nginx-static": ("GET", STATIC_PATH, None),
    "echo-local": ("POST", ECHO_PATH, ECHO_BODY),
    "echo-worker": ("POST", WORKER_PREFIX + "/hello", ECHO_BODY),
}
DESCRIPTIONS = {
    "static": "StaticBundle file via the Ingress controller",
    "echo-local": "echo pod on the control plane (in-process k32_handle)",
    "echo-worker": "echo pod on a worker (keep-alive HTTP relay)",
    "nginx-static": "the same file from nginx on loopback",
}


def run(
    load: Load,
    callgrind_requests: int,
    workdir: Path,
    backend_timeout: float,
    progress=lambda msg: None,
    rounds: int = 1,
) -> dict:
    rows = {
        case: {"case": case, "description": DESCRIPTIONS[case], "status": "ok", "instructionsPerRequest": None}
        for case in CASES
    }
    progress("starting a simulated cluster …")
    cluster = Cluster(workdir, backend_timeout)
    try:
        for case in ("static", "echo-local", "echo-worker"):
            if case in cluster.unavailable:
                rows[case]["status"] = f"unavailable: {cluster.unavailable[case]}"
                continue
            progress(f"load: {case}")
            method, path, body = REQUESTS[case]
            rows[case].update(load.run(cluster.host, cluster.port, method, path, body))
    finally:
        cluster.down()
    progress("load: nginx-static")
    nginx = Nginx(workdir)
    try:
        method, path, body = REQUESTS["nginx-static"]
        rows["nginx-static"].update(load.run("127.0.0.1", nginx.port, method, path, body))
    finally:
        nginx.stop()
    instructions = "skipped (--callgrind-requests 0)"
    if callgrind_requests:
        instructions = _instructions(rows, callgrind_requests, workdir, backend_timeout, progress, rounds)
    for case, target in TARGET_INSTRUCTIONS.items():
        ipr = rows[case]["instructionsPerRequest"]
        rows[case]["targetInstructions"] = target
        rows[case]["targetMet"] = None if ipr is None else ipr <= target
    return {
        "generator": load.generator,
        "connections": load.connections,
        "callgrindRequests": callgrind_requests,
        "callgrindRounds": rounds,
        "instructions": instructions,
        "rows": [rows[c] for c in CASES],
    }


def _instructions(rows: dict, n: int, workdir: Path, backend_timeout: float, progress, rounds: int) -> str:
    """Fills rows' instructionsPerRequest (control plane or nginx only: a worker's share of
    echo-worker is not counted); returns "ok" or why nothing was counted."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        return "unavailable: valgrind is not installed (Debian package valgrind)"
    progress("instructions: control plane under callgrind …")
    out = workdir / "callgrind.k32"
    cluster = Cluster(
        workdir,
        backend_timeout,
        callgrind_out=out,
        echo_cases=tuple(c for c in ("echo-local", "echo-worker") if rows[c]["status"] == "ok"),
    )
    try:
        cg = Callgrind(cluster.cp_pid, out)
        for case in ("static", "echo-local", "echo-worker"):
            if case in cluster.unavailable or rows[case]["status"] != "ok":
                continue
            method, path, body = REQUESTS[case]
            _count_rows(
                rows[case], cg.samples(_sequential(cluster.host, cluster.port, method, path, body, n), n, rounds)
            )
    finally:
        cluster.down()
    progress("instructions: nginx under callgrind …")
    out = workdir / "callgrind.nginx"
    nginx = Nginx(workdir, callgrind_out=out)
    try:
        method, path, body = REQUESTS["nginx-static"]
        _count_rows(
            rows["nginx-static"],
            Callgrind(nginx.proc.pid, out).samples(
                _sequential("127.0.0.1", nginx.port, method, path, body, n), n, rounds
            ),
        )
    finally:
        nginx.stop()
    return "ok"


def _count_rows(row: dict, samples: list[int]) -> None:
    row["instructionsPerRequest"] = round(statistics.median(samples))
    row["instructionsRounds"] = samples


def _print(result: dict) -> None:
    click.echo(
        f"load generator {result['generator']}, {result['connections']} connections; "
        f"instructions/request: {result['instructions']} (median of {result['callgrindRounds']} "
        f"rounds of {result['callgrindRequests']} sequential requests under callgrind)"
    )
    click.echo(f"  {'case':<13}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'instr/req':>12}  errors  target")
    for r in result["rows"]:
        if r["status"] != "ok":
            click.echo(f"  {r['case']:<13}{r['status']}")
            continue
        ipr = r.get("instructionsPerRequest")
        ipr = "-" if ipr is None else str(ipr)
        target = ""
        if r.get("targetInstructions") is not None:
            met = {True: "met", False: "MISSED", None: "-"}[r.get("targetMet")]
            target = f"  <= {r['targetInstructions']}: {met}"
        click.echo(
            f"  {r['case']:<13}{r['requestsPerSec']:>10.0f}{r['p50_ms']:>10.3f}"
            f"{r['p99_ms']:>10.3f}{ipr:>12}  {r['errors']:>6}{target}"
        )


@click.command("ingress")
@click.option(
    "--load",
    "generator",
    type=click.Choice(["auto", "wrk", "python"]),
    default="auto",
    show_default=True,
    help="Load generator (auto: wrk when installed).",
)
@click.option(
    "--duration", type=click.FloatRange(1, 600), default=5, show_default=True, help="Seconds per case with wrk."
)
@click.option(
    "--requests",
    type=click.IntRange(1, 10_000_000),
    default=2000,
    show_default=True,
    help="Requests per case with the Python generator.",
)
@click.option(
    "--connections",
    type=click.IntRange(1, 256),
    default=4,
    show_default=True,
    help="Concurrent keep-alive connections.",
)
@click.option(
    "--callgrind-requests",
    type=click.IntRange(0, 100_000),
    default=2000,
    show_default=True,
    help="Requests counted per round under callgrind (0: skip instructions).",
)
@click.option(
    "--callgrind-rounds",
    type=click.IntRange(1, 50),
    default=7,
    show_default=True,
    help="Rounds under callgrind; the median round is the figure.",
)
@click.option(
    "--backend-timeout",
    type=click.FloatRange(1, 600),
    default=DEFAULT_BACKEND_TIMEOUT_S,
    show_default=True,
    help="Seconds to wait for each route (echo pods starting) before a case is reported unavailable.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def ingress(generator, duration, requests, connections, callgrind_requests, callgrind_rounds, backend_timeout, as_json):
    """Ingress req/s, p50/p99 and instructions/request: static file, in-process and worker
    echo, and nginx serving the same file."""
    if generator == "auto":
        generator = "wrk" if shutil.which("wrk") else "python"
    elif generator == "wrk" and shutil.which("wrk") is None:
        raise click.ClickException("--load wrk: wrk is not installed (Debian package wrk)")
    progress = (lambda msg: None) if as_json else (lambda msg: click.echo(msg, err=True))
    with tempfile.TemporaryDirectory(prefix="k32-bench-ingress-") as tmp:
        load = Load(generator, requests, duration, connections, Path(tmp))
        try:
            result = run(load, callgrind_requests, Path(tmp), backend_timeout, progress, callgrind_rounds)
        except BenchError as e:
            raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        _print(result)
