"""`k32 bench calls`: k32_http_call latency and calls/s for a Service on the same node
(in-process) and on another node (the keep-alive pool), and the time of an https://
call (TLS 1.2 handshake + request) against a local HTTPS server, in one run.

The calls library runs in firmware/tools/calls/k32-call (host build); a native handler
stands in for the target pod, so the numbers are the call path's own cost, not a Wasm
pod's. The HTTPS server is Python's ssl module with a throw-away certificate from the
`openssl` command."""

from __future__ import annotations

import json
import shutil
import socketserver
import ssl
import subprocess
import tempfile
import threading
from pathlib import Path

import click

from k32 import REPO_ROOT

from .api import BenchError

BUILD_DIR = REPO_ROOT / "build" / "host"


def _build_tool(build_dir: Path) -> Path:
    for cmd in (
        ["cmake", "-S", str(REPO_ROOT / "firmware"), "-B", str(build_dir)],
        ["nice", "cmake", "--build", str(build_dir), "-j2", "--target", "k32-call"],
    ):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise BenchError(f"building k32-call failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return build_dir / "k32-call"


def _https_server(tmp: Path):
    """A local HTTPS server answering 'pong'; returns (server, port, ca_path) or None without openssl."""
    if not shutil.which("openssl"):
        return None
    crt, key = tmp / "srv.crt", tmp / "srv.key"
    p = subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(crt),
        ],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        raise BenchError(f"openssl could not make the bench certificate: {p.stderr.strip()}")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(crt), str(key))

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            try:
                s = ctx.wrap_socket(self.request, server_side=True)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\npong")
                s.close()
            except (OSError, ssl.SSLError):
                pass

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    srv = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1], crt


def run(calls: int, build_dir: Path = BUILD_DIR) -> dict:
    tool = _build_tool(build_dir)
    with tempfile.TemporaryDirectory(prefix="k32-bench-calls-") as tmp:
        https = _https_server(Path(tmp))
        args = [str(tool), "bench", "--repeat", str(calls)]
        if https:
            args += [f"https://localhost:{https[1]}/", "--ca", str(https[2])]
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=600)
        finally:
            if https:
                https[0].shutdown()
                https[0].server_close()
    if p.returncode != 0:
        raise BenchError(f"k32-call bench failed: {p.stderr.strip()}")
    result = json.loads(p.stdout.strip().splitlines()[-1])
    result["note"] = "native handler stands in for the target pod; host build of the calls library"
    if not https:
        result["tls_handshake_and_request"] = "unavailable: no openssl command"
    return result


def _row(name: str, r) -> str:
    if not isinstance(r, dict):
        return f"  {name:<26} {r}"
    return (
        f"  {name:<26} p50 {r['p50_ms']:8.3f} ms  p99 {r['p99_ms']:8.3f} ms  mean {r['mean_ms']:8.3f} ms  "
        f"{r['calls_per_s']:10.1f} calls/s  ({r['n']} calls, {r['failed']} failed)"
    )


@click.command("calls")
@click.option(
    "--calls",
    "n",
    type=click.IntRange(10, 1000000),
    default=2000,
    show_default=True,
    help="Calls per Service case (TLS: at most 50).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def calls(n, as_json):
    """k32_http_call: in-process and cross-node Service calls, and https:// handshake time."""
    try:
        result = run(n)
    except BenchError as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo("k32_http_call (" + result["note"] + ")")
    click.echo(_row("Service, same node", result["in_process"]))
    click.echo(_row("Service, other node (pool)", result["cross_node"]))
    click.echo(_row("https:// (TLS 1.2 + GET)", result["tls_handshake_and_request"]))
