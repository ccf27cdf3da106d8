"""`k32 catalog check`: the golden proof. apps/ must reproduce byte-for-byte from catalog/
(manifest_set.diff), and (k3s) internal services must publish no public DNS while public ones do — re-proved
from the bytes on disk, in both directions, not from the renderer's own output."""

from __future__ import annotations

from pathlib import Path

from .. import yamlio
from ..manifest_set import MANIFEST, dir_files
from .k3s import EXTERNALDNS_CONTROLLER, EXTERNALDNS_OPT_OUT


def internal_dns_violations(defs, apps_dir) -> list[str]:
    """Every HTTPRoute on disk: internal ⇒ controller annotation == none; public ⇒ absent."""
    exposure = {d.name: d.sd["exposure"] for d in defs}
    problems = []
    for path, data in dir_files(Path(apps_dir)).items():
        if path == MANIFEST or not path.endswith(".yaml"):
            continue
        obj = yamlio.load_strict(data.decode("utf-8", "replace"), path)
        if not isinstance(obj, dict) or obj.get("kind") != "HTTPRoute":
            continue
        ns = (obj.get("metadata") or {}).get("namespace")
        ann = (obj.get("metadata") or {}).get("annotations") or {}
        exp = exposure.get(ns)
        if exp is None:
            problems.append(f"{path}: HTTPRoute in namespace {ns!r} has no ServiceDefinition")
        elif exp == "internal" and ann.get(EXTERNALDNS_CONTROLLER) != EXTERNALDNS_OPT_OUT:
            problems.append(
                f"{path}: internal service {ns} publishes DNS: {EXTERNALDNS_CONTROLLER} must be {EXTERNALDNS_OPT_OUT!r}"
            )
        elif exp == "public" and EXTERNALDNS_CONTROLLER in ann:
            problems.append(
                f"{path}: public service {ns} is hidden from ExternalDNS: {EXTERNALDNS_CONTROLLER} must be absent"
            )
    return problems
