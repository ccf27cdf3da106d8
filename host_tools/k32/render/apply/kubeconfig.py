"""Just enough kubeconfig: server, CA, token / client cert / basic auth for one context."""
from __future__ import annotations

import base64
import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import RenderError


@dataclass
class Connection:
    server: str
    ssl_context: ssl.SSLContext | None
    headers: dict
    namespace: str


def _paths(explicit):
    if explicit:
        return [Path(explicit)]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _merged(paths):
    """kubectl's rule: the first file that sets a value wins, lists merged by name."""
    merged = {"clusters": {}, "contexts": {}, "users": {}, "current-context": None}
    for p in paths:
        try:
            doc = yaml.safe_load(p.read_text()) or {}
        except FileNotFoundError:
            continue
        except (OSError, yaml.YAMLError) as exc:
            raise RenderError("kubeconfig", f"{p}: {' '.join(str(exc).split())}") from None
        if not isinstance(doc, dict):
            raise RenderError("kubeconfig", f"{p}: not a kubeconfig mapping")
        for key in ("clusters", "contexts", "users"):
            items = doc.get(key) or []
            if not isinstance(items, list):
                raise RenderError("kubeconfig", f"{p}: {key}: must be a list")
            for i, item in enumerate(items):
                body = item.get(key[:-1]) if isinstance(item, dict) else None
                if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                        or not isinstance(body or {}, dict):
                    raise RenderError("kubeconfig", f"{p}: {key}[{i}]: needs a name and a {key[:-1]} mapping")
                merged[key].setdefault(item["name"], (body or {}, p))
        current = doc.get("current-context")
        if current is not None and not isinstance(current, str):
            raise RenderError("kubeconfig", f"{p}: current-context: must be a string")
        merged["current-context"] = merged["current-context"] or current
    return merged


def _file_from(entry: dict, key: str, base: Path, tmpdir: list) -> str | None:
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


def connect(context: str | None = None, kubeconfig: str | None = None) -> Connection:
    try:
        return _connect(context, kubeconfig)
    except (OSError, ssl.SSLError, ValueError) as exc:   # unreadable CA/cert/token, bad base64
        raise RenderError("kubeconfig", f"credentials: {' '.join(str(exc).split())}") from None


def _connect(context, kubeconfig) -> Connection:
    paths = _paths(kubeconfig)
    cfg = _merged(paths)
    name = context or cfg["current-context"]
    if not name:
        raise RenderError("kubeconfig", f"{', '.join(map(str, paths))}: no current-context; pass --context")
    if name not in cfg["contexts"]:
        raise RenderError("kubeconfig", f"context {name!r} not found in {', '.join(map(str, paths))}")
    ctx, _ = cfg["contexts"][name]
    for field in ("cluster", "user", "namespace"):
        if field in ctx and not isinstance(ctx[field], str):
            raise RenderError("kubeconfig", f"context {name!r}: {field}: must be a string")
    cluster, cpath = cfg["clusters"].get(ctx.get("cluster"), (None, None))
    if cluster is None or not isinstance(cluster.get("server"), str) or not cluster["server"]:
        raise RenderError("kubeconfig", f"context {name!r}: cluster {ctx.get('cluster')!r} has no server")
    user, upath = cfg["users"].get(ctx.get("user"), ({}, cpath))
    server = cluster["server"].rstrip("/")
    if not server.startswith(("http://", "https://")):
        raise RenderError("kubeconfig", f"{cpath}: cluster {ctx.get('cluster')!r}: server must be http(s)://")
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
        raise RenderError("kubeconfig", f"context {name!r}: exec/auth-provider credentials are not supported")
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(user["tokenFile"]).read_text().strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    elif user.get("username"):
        basic = base64.b64encode(f"{user['username']}:{user.get('password', '')}".encode()).decode()
        headers["Authorization"] = f"Basic {basic}"
    return Connection(server, ssl_ctx, headers, ctx.get("namespace") or "default")
