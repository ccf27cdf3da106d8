"""`k32 image push FILE --context C`: install a Wasm module into the wasm://sd/ store of the
node whose API server the kubeconfig context names, through its authenticated
PUT /kube32/v1/sdimages/<name> (the context's certificate pin and token are used as kubectl
uses them)."""

from __future__ import annotations

import json
from pathlib import Path

from k32.httpclient import HttpClient, HttpError
from k32.kubeconfig import KubeconfigError, connect

from .user import image_name

WASM_MAGIC = b"\0asm\x01\0\0\0"
TIMEOUT = 30.0
ANSWER_MAX = 1 << 20  # the node answers with a short JSON status


class PushError(RuntimeError):
    pass


def push(file: Path, context: str | None = None, kubeconfig: Path | None = None, name: str | None = None) -> dict:
    file = Path(file)
    try:
        data = file.read_bytes()
    except OSError as e:
        raise PushError(f"{file}: {e.strerror}") from None
    if not data.startswith(WASM_MAGIC):
        raise PushError(f"{file}: not a WebAssembly module (no \\0asm version 1 header)")
    n = image_name(file.with_suffix("") if file.suffix == ".wasm" else file, name)
    try:
        conn = connect(context, kubeconfig)
    except KubeconfigError as e:
        raise PushError(str(e)) from None
    try:
        with HttpClient(conn.server, conn.ssl_context, conn.headers, TIMEOUT, body_max=ANSWER_MAX) as client:
            resp = client.request("PUT", f"/kube32/v1/sdimages/{n}", data, {"Content-Type": "application/wasm"})
    except HttpError as e:
        raise PushError(str(e)) from None
    body = resp.body
    server = conn.server
    try:
        doc = json.loads(body)
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    if resp.status != 201:
        raise PushError(f"{server} refused the image ({resp.status}): {doc.get('message') or body[:200]!r}")
    return doc


__all__ = ["PushError", "push"]
