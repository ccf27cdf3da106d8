"""One kubeconfig context turned into what an HTTP client needs: the server URL, a TLS context
(the cluster's CA, or the client certificate the user entry names), the Authorization header
(token, token file or basic auth) and the default namespace."""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .files import KubeconfigError, read_merged, search_paths


@dataclass
class Connection:
    server: str
    ssl_context: ssl.SSLContext | None
    headers: dict
    namespace: str


def _file_from(entry: dict, key: str, base: Path, tmpdir: list) -> str | None:
    """The path of `key` (certificate-authority, client-key, ...): written from `key-data` to
    a private temporary file (ssl loads certificates from files only), or relative to the
    kubeconfig that names it."""
    if entry.get(f"{key}-data"):
        if not tmpdir:
            tmpdir.append(tempfile.mkdtemp(prefix="k32-kubeconfig-"))
        path = Path(tmpdir[0]) / key
        path.write_bytes(base64.b64decode(entry[f"{key}-data"]))
        os.chmod(path, 0o600)
        return str(path)
    if entry.get(key):
        p = Path(entry[key])
        return str(p if p.is_absolute() else base.parent / p)
    return None


def connect(context: str | None = None, kubeconfig: str | Path | None = None) -> Connection:
    """The connection for `context` (default: the current context) of `kubeconfig` (default:
    kubectl's files). Every problem is a KubeconfigError naming file and field."""
    try:
        return _connect(context, kubeconfig)
    except (OSError, ssl.SSLError, ValueError) as exc:  # unreadable CA/cert/token, bad base64
        raise KubeconfigError(f"credentials: {' '.join(str(exc).split())}") from None


def _connect(context, kubeconfig) -> Connection:
    paths = search_paths(kubeconfig)
    cfg = read_merged(paths)
    name = context or cfg["current-context"]
    if not name:
        raise KubeconfigError(f"{', '.join(map(str, paths))}: no current-context; pass --context")
    if name not in cfg["contexts"]:
        raise KubeconfigError(f"context {name!r} not found in {', '.join(map(str, paths))}")
    ctx, _ = cfg["contexts"][name]
    for field in ("cluster", "user", "namespace"):
        if field in ctx and not isinstance(ctx[field], str):
            raise KubeconfigError(f"context {name!r}: {field}: must be a string")
    cluster, cpath = cfg["clusters"].get(ctx.get("cluster"), (None, None))
    if cluster is None or not isinstance(cluster.get("server"), str) or not cluster["server"]:
        raise KubeconfigError(f"context {name!r}: cluster {ctx.get('cluster')!r} has no server")
    user, upath = cfg["users"].get(ctx.get("user"), ({}, cpath))
    server = cluster["server"].rstrip("/")
    if not server.startswith(("http://", "https://")):
        raise KubeconfigError(f"{cpath}: cluster {ctx.get('cluster')!r}: server must be http(s)://")
    headers, tmp = {}, []
    ssl_ctx = None
    if server.startswith("https://"):
        ca = _file_from(cluster, "certificate-authority", cpath, tmp)
        if cluster.get("insecure-skip-tls-verify"):
            ssl_ctx = ssl._create_unverified_context()  # the kubeconfig asked for it
        else:
            ssl_ctx = ssl.create_default_context(cafile=ca)
        cert = _file_from(user, "client-certificate", upath, tmp)
        key = _file_from(user, "client-key", upath, tmp)
        if cert:
            ssl_ctx.load_cert_chain(cert, key)
    if user.get("exec") or user.get("auth-provider"):
        raise KubeconfigError(f"context {name!r}: exec/auth-provider credentials are not supported")
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(user["tokenFile"]).read_text().strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    elif user.get("username"):
        basic = base64.b64encode(f"{user['username']}:{user.get('password', '')}".encode()).decode()
        headers["Authorization"] = f"Basic {basic}"
    return Connection(server, ssl_ctx, headers, ctx.get("namespace") or "default")
