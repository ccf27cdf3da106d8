"""`k32 catalog render --selftest`: the mapping's load-bearing cases asserted as EXACT dicts.

Expected values are written out literally on purpose: deriving them from the renderer's
constants would make the test agree with any change. A new key in the GPU container, a
changed mount option or a lost annotation fails here loudly."""

from __future__ import annotations

from . import k3s
from .load import load_text

_PLEX = """
name: plex
source: {image: "plexinc/pms-docker:1.41.0"}
exposure: public
ports: [{name: http, port: 32400}]
hardware: {gpu: intel-quicksync}
storage:
  - {name: config, size: 20Gi, class: longhorn}
  - {name: media, size: 8Ti, class: bulk, export: /tank/media, readOnly: true}
ingressRoutes: [{host: plex.home.keithjackson.dev, port: 32400}]
"""
_NOGPU = "name: web\nsource: {image: nginx}\nports: [{name: http, port: 80}]\n"
_INTERNAL = "name: sonarr\nsource: {image: sonarr}\ningressRoutes: [{host: sonarr.home.keithjackson.dev, port: 8989}]\n"
_PIHOLE = """
name: pihole
source: {image: "pihole/pihole:2024.07.0"}
ports: [{name: dns, port: 53, protocol: UDP}]
availability: {replicas: %d}
storage:
  - {name: config, size: 1Gi, class: longhorn, mountPath: /etc/pihole}
  - {name: lists, size: 1Gi, class: bulk, export: /tank/pihole, readOnly: true}
"""


def _objs(text):
    return k3s.render_service(load_text(text, "<selftest>"))


def _one(objs, kind, name=None):
    found = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, got {len(found)}"
    return found[0]


def _eq(what, got, want):
    assert got == want, f"{what}:\n  got  {got!r}\n  want {want!r}"


def case_gpu():
    plex = _one(_objs(_PLEX), "Deployment")
    pod = plex["spec"]["template"]["spec"]
    app = next(c for c in pod["containers"] if c["name"] == "plex")
    _eq("GPU resources", app["resources"], {"limits": {"gpu.intel.com/i915": 1}})
    for c in pod["containers"]:
        if c is not app:
            _eq(f"sidecar {c['name']} resources", c.get("resources"), None)
        _eq(f"{c['name']} securityContext", c.get("securityContext"), None)
    for key in ("securityContext", "nodeSelector"):
        _eq(f"pod {key}", pod.get(key), None)
    _eq("volumes", [v["name"] for v in pod["volumes"]], ["config", "media"])
    web = _one(_objs(_NOGPU), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    _eq(
        "no-GPU container",
        web,
        {"name": "web", "image": "nginx", "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}]},
    )


def case_bulk():
    objs = _objs(_PLEX)
    _eq(
        "bulk PV",
        _one(objs, "PersistentVolume"),
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "plex-media", "labels": {"app.kubernetes.io/name": "plex"}},
            "spec": {
                "capacity": {"storage": "8Ti"},
                "accessModes": ["ReadOnlyMany"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": "",
                "mountOptions": ["nfsvers=4.1", "hard", "noatime", "timeo=600", "retrans=2"],
                "nfs": {"server": "${BULK_NFS_SERVER}", "path": "/tank/media", "readOnly": True},
                "claimRef": {"namespace": "plex", "name": "media"},
            },
        },
    )
    _eq(
        "bulk PVC",
        _one(objs, "PersistentVolumeClaim", "media"),
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "media", "namespace": "plex", "labels": {"app.kubernetes.io/name": "plex"}},
            "spec": {
                "accessModes": ["ReadOnlyMany"],
                "storageClassName": "",
                "volumeName": "plex-media",
                "resources": {"requests": {"storage": "8Ti"}},
            },
        },
    )
    _eq(
        "longhorn PVC spec",
        _one(objs, "PersistentVolumeClaim", "config")["spec"],
        {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "longhorn",
            "resources": {"requests": {"storage": "20Gi"}},
        },
    )
    app = _one(objs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    _eq(
        "mounts",
        app["volumeMounts"],
        [
            {"name": "config", "mountPath": "/data/config"},
            {"name": "media", "mountPath": "/data/media", "readOnly": True},
        ],
    )


def case_exposure():
    public = _one(_objs(_PLEX), "HTTPRoute")
    _eq("public route annotations", public["metadata"].get("annotations"), None)
    internal = _one(_objs(_INTERNAL), "HTTPRoute")
    _eq(
        "internal route annotations (exposure omitted -> internal)",
        internal["metadata"].get("annotations"),
        {"external-dns.alpha.kubernetes.io/controller": "none"},
    )


def case_replicas():
    one = _objs(_PIHOLE % 1)
    absent = _objs((_PIHOLE % 1).replace("availability: {replicas: 1}\n", ""))
    _eq("replicas 1 == availability absent", one, absent)
    dep = _one(one, "Deployment")
    _eq("replicas 1 strategy", dep["spec"]["strategy"], {"type": "Recreate"})
    _eq("replicas 1 PDB", [o for o in one if o["kind"] == "PodDisruptionBudget"], [])
    three = _objs(_PIHOLE % 3)
    sts = _one(three, "StatefulSet")["spec"]
    _eq("replicas", sts["replicas"], 3)
    _eq("podManagementPolicy", sts["podManagementPolicy"], "Parallel")
    _eq(
        "volumeClaimTemplates",
        sts["volumeClaimTemplates"],
        [
            {
                "metadata": {"name": "config"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": "longhorn",
                    "resources": {"requests": {"storage": "1Gi"}},
                },
            }
        ],
    )
    pod = sts["template"]["spec"]
    _eq("mount names", [m["name"] for m in pod["containers"][0]["volumeMounts"]], ["config", "lists"])
    _eq("pod volumes (bulk only)", pod["volumes"], [{"name": "lists", "persistentVolumeClaim": {"claimName": "lists"}}])
    _eq(
        "anti-affinity",
        pod["affinity"],
        {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "pihole"}},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
    )
    _eq("standalone PVCs", [o["metadata"]["name"] for o in three if o["kind"] == "PersistentVolumeClaim"], ["lists"])
    _eq(
        "PDB spec",
        _one(three, "PodDisruptionBudget")["spec"],
        {"minAvailable": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": "pihole"}}},
    )
    rule = _one(three, "PrometheusRule")["spec"]["groups"][0]["rules"][0]
    _eq("livenessWorkload kind", rule["labels"]["workload_kind"], "StatefulSet")


CASES = {"gpu": case_gpu, "bulk": case_bulk, "exposure": case_exposure, "replicas": case_replicas}


def run() -> list[tuple[str, str | None]]:
    """[(case, None on pass or the failure message)]"""
    out = []
    for name, fn in CASES.items():
        try:
            fn()
            out.append((name, None))
        except AssertionError as exc:
            out.append((name, str(exc)))
    return out
