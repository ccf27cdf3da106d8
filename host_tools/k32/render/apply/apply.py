"""Apply a rendered manifest set's exact objects and compute drift.

What reaches the server is the hashed YAML parsed once and sent as JSON (the API's wire
format; JSON is also valid apply-patch YAML) plus two annotations: the resource's own hash
and the set's digest. Nothing is re-rendered. Server-side apply (PATCH
application/apply-patch+yaml, fieldManager=k32, force) is the only write, so a re-apply is
idempotent on kube-apiserver and the Kube32 simulator alike."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .. import yamlio
from ..errors import RenderError
from ..manifest_set import ManifestSet, Resource
from .client import FIELD_MANAGER, Client, status_message

HASH_ANNOTATION = "kube32.io/resource-hash"
DIGEST_ANNOTATION = "kube32.io/bundle-digest"


def wire_object(r: Resource, set_digest: str) -> dict:
    obj = yamlio.load_strict(r.data.decode("utf-8"), r.path)
    meta = obj.setdefault("metadata", {})
    ann = meta.get("annotations") or {}
    if not isinstance(ann, dict):
        raise RenderError("invalid_resource", f"{r.path}: metadata.annotations: must be a mapping")
    meta["annotations"] = {**ann, HASH_ANNOTATION: f"sha256:{r.sha256}", DIGEST_ANNOTATION: set_digest}
    return obj


def wire_bytes(r: Resource, set_digest: str) -> bytes:
    return json.dumps(wire_object(r, set_digest), separators=(",", ":")).encode()


def apply_manifests(client: Client, b: ManifestSet, echo=lambda line: None) -> None:
    for r in b.resources:
        i = r.identity
        path = client.object_path(i.api_version, i.kind, i.namespace, i.name)
        status, doc = client.request(
            "PATCH",
            path,
            wire_bytes(r, b.digest),
            "application/apply-patch+yaml",
            {"fieldManager": FIELD_MANAGER, "force": "true"},
        )
        if status not in (200, 201):
            raise RenderError("apply_failed", f"{r.path}: {i}: HTTP {status}: {status_message(doc)}")
        echo(f"applied {i} ({r.path})")


@dataclass
class Drift:
    resource: Resource
    reason: str

    def __str__(self):
        return f"{self.resource.identity} ({self.resource.path}): {self.reason}"


def _subset_diff(want, got, path="") -> list[str]:
    """Paths where the desired value is not what the server holds. Fields the server adds
    (defaults, status, managedFields) are not drift."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [path or "."]
        out = []
        for k, v in want.items():
            sub = f"{path}.{k}" if path else k
            if k not in got:
                if v in ({}, [], None, ""):  # servers may drop empty values
                    continue
                out.append(sub)
            else:
                out += _subset_diff(v, got[k], sub)
        return out
    if isinstance(want, list):
        if not isinstance(got, list) or len(want) != len(got):
            return [path]
        out = []
        for n, (a, b) in enumerate(zip(want, got)):
            out += _subset_diff(a, b, f"{path}[{n}]")
        return out
    if want == got or (not isinstance(want, bool) and str(want) == str(got)):
        return []
    return [path]


def drift(client: Client, b: ManifestSet) -> list[Drift]:
    out = []
    for r in b.resources:
        i = r.identity
        status, live = client.request("GET", client.object_path(i.api_version, i.kind, i.namespace, i.name))
        if status == 404:
            out.append(Drift(r, "missing from the cluster"))
            continue
        if status != 200 or not isinstance(live, dict):
            raise RenderError("api_error", f"GET {i}: HTTP {status}: {status_message(live)}")
        ann = (live.get("metadata") or {}).get("annotations") or {}
        if ann.get(HASH_ANNOTATION) != f"sha256:{r.sha256}":
            out.append(
                Drift(r, f"{HASH_ANNOTATION} is {ann.get(HASH_ANNOTATION)!r}, manifest set has sha256:{r.sha256}")
            )
            continue
        if ann.get(DIGEST_ANNOTATION) != b.digest:
            out.append(Drift(r, f"{DIGEST_ANNOTATION} is {ann.get(DIGEST_ANNOTATION)!r}, manifest set is {b.digest}"))
            continue
        fields = _subset_diff(wire_object(r, b.digest), live)
        if fields:
            out.append(
                Drift(
                    r,
                    "live differs at "
                    + ", ".join(fields[:5])
                    + (f" (+{len(fields) - 5} more)" if len(fields) > 5 else ""),
                )
            )
    return out
