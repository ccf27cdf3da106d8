"""What `k32 kubeconfig` does: a kubeconfig context for a board's (or a simulated node's) API server.

With `--port` the API's certificate is read over the node's console (K32_CMD:APICERT), so it
is pinned without trusting the network; with `--ip` it is taken from the first TLS handshake
(trust on first use) and its fingerprint printed for comparison. A node that has a token
gets it in the context (the console never tells a token, so it comes from --token,
$K32_TOKEN or a prompt). The context is checked with one authenticated request before it is
written, so a wrong token or address is reported instead of saved."""

from __future__ import annotations

import hashlib
import ssl
from dataclasses import dataclass
from pathlib import Path

from k32.httpclient import HttpClient, HttpError
from k32.provision import Console, ProvisionError, check_token

from .files import KubeconfigError, write_context

DEFAULT_API_PORT = 6443
CHECK_TIMEOUT = 10.0
PEM_MAX = 16 * 1024
CHECK_BODY_MAX = 1 << 20  # a node list of a few boards is a few KiB


@dataclass
class Target:
    ip: str
    api_port: int
    pem: str
    has_token: bool | None  # None: unknown (no console)


def from_console(port: str, timeout: float = 10.0) -> Target:
    try:
        with Console(port) as con:
            status = con.command("STATUS", timeout=timeout)
            if status.get("role") != "control-plane":
                raise KubeconfigError(
                    f"the node on {port} is a {status.get('role', '?')}: the API runs on "
                    "the control plane; give its console"
                )
            cert = con.command("APICERT", timeout=timeout)
    except ProvisionError as e:
        raise KubeconfigError(str(e)) from None
    pem = cert.get("pem")
    if not isinstance(pem, str) or "BEGIN CERTIFICATE" not in pem or len(pem) > PEM_MAX:
        raise KubeconfigError("the node's APICERT answer holds no PEM certificate")
    ip, api_port = cert.get("ip"), cert.get("apiPort")
    if not isinstance(ip, str) or not isinstance(api_port, int) or not 0 < api_port < 65536:
        raise KubeconfigError("the node's APICERT answer has no usable ip/apiPort")
    return Target(ip, api_port, pem, bool(status.get("token")))


def from_network(ip: str, api_port: int, timeout: float = CHECK_TIMEOUT) -> Target:
    try:
        pem = ssl.get_server_certificate((ip, api_port), timeout=timeout)
    except (OSError, ssl.SSLError) as e:
        raise KubeconfigError(f"no TLS API at {ip}:{api_port}: {e}") from None
    return Target(ip, api_port, pem, None)


def fingerprint(pem: str) -> str:
    der = ssl.PEM_cert_to_DER_cert(pem)
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def check(target: Target, token: str | None, timeout: float = CHECK_TIMEOUT) -> dict:
    """GET /api/v1/nodes with the pinned certificate and the token; the node list on success."""
    ctx = ssl.create_default_context(cadata=target.pem)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with HttpClient(
            f"https://{target.ip}:{target.api_port}", ctx, headers, timeout, body_max=CHECK_BODY_MAX
        ) as client:
            resp = client.request("GET", "/api/v1/nodes")
    except HttpError as e:
        raise KubeconfigError(str(e)) from None
    if resp.status == 401:
        raise KubeconfigError(
            "the API refused the token (401 Unauthorized): "
            + ("give the node's token with --token or K32_TOKEN" if not token else "wrong token")
        )
    if resp.status != 200:
        raise KubeconfigError(f"GET /api/v1/nodes answered {resp.status}")
    try:
        return resp.json()
    except ValueError:
        raise KubeconfigError("GET /api/v1/nodes answered no JSON") from None


def write(target: Target, token: str | None, context: str, path: Path | None) -> Path:
    if token:
        check_token(token)
    return write_context(f"https://{target.ip}:{target.api_port}", token or None, path, context, target.pem)
