"""`k32 catalog check`: the golden proof. apps/ must reproduce byte-for-byte from catalog/,
and (k3s) internal services must publish no public DNS while public ones do — re-proved
from the bytes on disk, in both directions, not from the renderer's own output."""
from __future__ import annotations

import difflib
from pathlib import Path

from .. import yamlio
from ..bundle import MANIFEST
from .k3s import EXTERNALDNS_CONTROLLER, EXTERNALDNS_OPT_OUT


def _files(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def diff(expected: dict[str, bytes], apps_dir) -> list[str]:
    """Unified-diff lines; empty when apps_dir reproduces exactly."""
    actual = _files(Path(apps_dir))
    out = []
    for path in sorted(set(expected) | set(actual)):
        want, got = expected.get(path), actual.get(path)
        if want == got:
            continue
        a = (got or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (want or b"").decode("utf-8", "replace").splitlines(keepends=True)
        out += list(difflib.unified_diff(a, b, f"{apps_dir}/{path}" if got is not None else "/dev/null",
                                         f"rendered/{path}" if want is not None else "/dev/null"))
        if not out or not out[-1].endswith("\n"):
            out.append("\n")
    return out


def internal_dns_violations(defs, apps_dir) -> list[str]:
    """Every HTTPRoute on disk: internal ⇒ controller annotation == none; public ⇒ absent."""
    exposure = {d.name: d.sd["exposure"] for d in defs}
    problems = []
    for path, data in _files(Path(apps_dir)).items():
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
            problems.append(f"{path}: internal service {ns} publishes DNS: "
                            f"{EXTERNALDNS_CONTROLLER} must be {EXTERNALDNS_OPT_OUT!r}")
        elif exp == "public" and EXTERNALDNS_CONTROLLER in ann:
            problems.append(f"{path}: public service {ns} is hidden from ExternalDNS: "
                            f"{EXTERNALDNS_CONTROLLER} must be absent")
    return problems
