"""`k32 image push FILE --context C`: install a Wasm module into the wasm://sd/ store of the
node whose API server the kubeconfig context names, through its authenticated
PUT /kube32/v1/sdimages/<name> (the context's certificate pin and token are used as kubectl
uses them)."""
from __future__ import annotations

import base64
import http.client
import json
import ssl
from pathlib import Path
from urllib.parse import urlsplit

from k32.sim import kubeconfig as kcfg

from .user import image_name

WASM_MAGIC = b"\0asm\x01\0\0\0"
TIMEOUT = 30.0


class PushError(RuntimeError):
    pass


def _context(path: Path | None, context: str | None) -> tuple[str, str | None, str | None, bool]:
    """(server, ca_pem, token, insecure) of the context."""
    path = Path(path) if path else kcfg.default_path()
    try:
        doc = kcfg.load(path)
    except kcfg.KubeconfigError as e:
        raise PushError(str(e)) from None
    name = context or doc.get("current-context")
    ctx = next((c.get("context") or {} for c in doc.get("contexts") or [] if c.get("name") == name), None)
    if ctx is None:
        raise PushError(f"{path}: no context {name!r}")
    cluster = next((c.get("cluster") or {} for c in doc.get("clusters") or [] if c.get("name") == ctx.get("cluster")),
                   {})
    user = next((u.get("user") or {} for u in doc.get("users") or [] if u.get("name") == ctx.get("user")), {})
    server = cluster.get("server")
    if not server:
        raise PushError(f"{path}: context {name!r} has no cluster server")
    ca = cluster.get("certificate-authority-data")
    ca_pem = base64.b64decode(ca).decode() if ca else None
    if not ca_pem and cluster.get("certificate-authority"):
        ca_pem = Path(cluster["certificate-authority"]).read_text()
    return server, ca_pem, user.get("token"), bool(cluster.get("insecure-skip-tls-verify"))


def push(file: Path, context: str | None = None, kubeconfig: Path | None = None, name: str | None = None) -> dict:
    file = Path(file)
    try:
        data = file.read_bytes()
    except OSError as e:
        raise PushError(f"{file}: {e.strerror}") from None
    if not data.startswith(WASM_MAGIC):
        raise PushError(f"{file}: not a WebAssembly module (no \\0asm version 1 header)")
    n = image_name(file.with_suffix("") if file.suffix == ".wasm" else file, name)
    server, ca_pem, token, insecure = _context(kubeconfig, context)
    u = urlsplit(server)
    if u.scheme == "https":
        ctx = ssl.create_default_context(cadata=ca_pem) if ca_pem else ssl.create_default_context()
        if insecure and not ca_pem:
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        conn = http.client.HTTPSConnection(u.hostname, u.port or 443, context=ctx, timeout=TIMEOUT)
    elif u.scheme == "http":
        conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=TIMEOUT)
    else:
        raise PushError(f"server {server!r} is neither http nor https")
    headers = {"Content-Type": "application/wasm"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request("PUT", f"/kube32/v1/sdimages/{n}", body=data, headers=headers)
        resp = conn.getresponse()
        body = resp.read(1 << 20)
    except (OSError, ssl.SSLError) as e:
        raise PushError(f"{server}: {e}") from None
    finally:
        conn.close()
    try:
        doc = json.loads(body)
    except ValueError:
        doc = {}
    if resp.status != 201:
        raise PushError(f"{server} refused the image ({resp.status}): {doc.get('message') or body[:200]!r}")
    return doc


__all__ = ["PushError", "push"]
