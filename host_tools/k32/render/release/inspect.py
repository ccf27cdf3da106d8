"""`InspectTargetContract`: execute the trusted template with inert values and read back only
the target shape (Rollout + stable/canary Services). Creates no manifest set."""

from __future__ import annotations

from .. import yamlio
from ..errors import RenderError
from .render import Evidence, Target, check_value, template_data
from .template import Template

INERT_DIGEST = "sha256:" + "0" * 64
INERT_IMAGE = f"inert.invalid/inert@{INERT_DIGEST}"
INERT_SOURCE = "inert/inert@" + "0" * 40


def inspect_target_contract(t: Template, application: str, namespace: str) -> dict:
    t.require_loaded()
    target = Target.parse(f"{application}/inert/inert/{namespace}")
    data = template_data(target, Evidence.parse(INERT_IMAGE, INERT_SOURCE), (100,))
    objs = [yamlio.load_strict(t.parsed(p).execute(data, check_value), p) for p in t.resource_paths()]
    objs = [o for o in objs if isinstance(o, dict)]
    rollouts = [o for o in objs if o.get("kind") == "Rollout"]
    if len(rollouts) != 1:
        raise RenderError("no_rollout", f"the template renders {len(rollouts)} Rollouts, exactly one is required")
    ro = rollouts[0]
    spec = ro.get("spec") or {}
    pod = spec.get("template") or {}
    ports = [
        {"name": p.get("name", ""), "port": p.get("containerPort")}
        for c in (pod.get("spec") or {}).get("containers") or []
        for p in c.get("ports") or []
    ]

    def service(name):
        for o in objs:
            if o.get("kind") == "Service" and (o.get("metadata") or {}).get("name") == name:
                s = o.get("spec") or {}
                tp = (s.get("ports") or [{}])[0].get("targetPort", "")
                return {"name": name, "selector": s.get("selector") or {}, "targetPort": str(tp)}
        raise RenderError("no_service", f"the template renders no Service named {name!r}")

    return {
        "rolloutName": ro["metadata"]["name"],
        "rolloutSelector": (spec.get("selector") or {}).get("matchLabels") or {},
        "podLabels": (pod.get("metadata") or {}).get("labels") or {},
        "containerPorts": ports,
        "stableService": service(data.StableServiceName),
        "canaryService": service(data.CanaryServiceName),
    }
