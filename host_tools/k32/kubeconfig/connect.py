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
from urllib.parse import urlsplit

from .files import KubeconfigError, read_merged, search_paths


@dataclass
class Connection:
    server: str
    ssl_context: ssl.SSLContext | None
    headers: dict
    namespace: str


def _string(entry: dict, key: str, where: str) -> str | None:
    """entry[key] when it is a string (None when absent); any other type is refused, as
    kubectl refuses it, instead of being used as whatever it happens to be."""
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise KubeconfigError(f"{where}: {key}: must be a string, got {type(value).__name__}")
    return value


def _file_from(entry: dict, key: str, base: Path, tmpdir: list, where: str) -> str | None:
    """The path of `key` (certificate-authority, client-key, ...): written from `key-data` to
    a private temporary file (ssl loads certificates from files only), or relative to the
    kubeconfig that names it."""
    data = _string(entry, f"{key}-data", where)
    if data:
        if not tmpdir:
            tmpdir.append(tempfile.mkdtemp(prefix="k32-kubeconfig-"))
        path = Path(tmpdir[0]) / key
        try:
            # kubectl's decoder skips line breaks; anything else outside the alphabet is an error
            path.write_bytes(base64.b64decode("".join(data.split()), validate=True))
        except ValueError:
            raise KubeconfigError(f"{where}: {key}-data: not base64") from None
        os.chmod(path, 0o600)
        return str(path)
    name = _string(entry, key, where)
    if name:
        p = Path(name)
        return str(p if p.is_absolute() else base.parent / p)
    return None


def _check_server(server: str, where: str) -> None:
    """An http(s) URL with a host and a port that fits, so a typo is named here rather than
    surfacing as a connection error later."""
    try:
        u = urlsplit(server)
        u.port  # noqa: B018 - parses the port, raising ValueError when it is out of range
    except ValueError as e:
        raise KubeconfigError(f"{where}: server {server!r}: {e}") from None
    if u.scheme not in ("http", "https") or not u.hostname:
        raise KubeconfigError(f"{where}: server {server!r}: must be http(s)://HOST[:PORT]")


def _header_value(value: str, where: str, key: str) -> str:
    # A line break in a credential would end the Authorization header early.
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise KubeconfigError(f"{where}: {key}: holds a control character")
    return value


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
    cwhere = f"{cpath}: cluster {ctx.get('cluster')!r}"
    uwhere = f"{upath}: user {ctx.get('user')!r}"
    server = cluster["server"].rstrip("/")
    _check_server(server, cwhere)
    headers, tmp = {}, []
    ssl_ctx = None
    if server.startswith("https://"):
        ca = _file_from(cluster, "certificate-authority", cpath, tmp, cwhere)
        insecure = cluster.get("insecure-skip-tls-verify", False)
        if not isinstance(insecure, bool):  # "false" in quotes must not switch verification off
            raise KubeconfigError(f"{cwhere}: insecure-skip-tls-verify: must be true or false, got {insecure!r}")
        if insecure:
            ssl_ctx = ssl._create_unverified_context()  # the kubeconfig asked for it
        else:
            ssl_ctx = ssl.create_default_context(cafile=ca)
        cert = _file_from(user, "client-certificate", upath, tmp, uwhere)
        key = _file_from(user, "client-key", upath, tmp, uwhere)
        if cert:
            ssl_ctx.load_cert_chain(cert, key)
    if user.get("exec") or user.get("auth-provider"):
        raise KubeconfigError(f"context {name!r}: exec/auth-provider credentials are not supported")
    token = _string(user, "token", uwhere)
    token_file = _string(user, "tokenFile", uwhere)
    if not token and token_file:
        token = Path(token_file).read_text().strip()
    username, password = _string(user, "username", uwhere), _string(user, "password", uwhere)
    if token:
        headers["Authorization"] = f"Bearer {_header_value(token, uwhere, 'token')}"
    elif username:
        basic = base64.b64encode(f"{username}:{password or ''}".encode()).decode()
        headers["Authorization"] = f"Basic {basic}"
    return Connection(server, ssl_ctx, headers, ctx.get("namespace") or "default")
