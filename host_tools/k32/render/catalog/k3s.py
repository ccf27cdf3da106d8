"""Target k3s: a materialised ServiceDefinition -> its k3s resources, in order.

Each `_render_*` maps one ServiceDefinition field (docs/renderers.md) and is the only place
that mapping lives. Every platform decision (zone, Gateway, mount options, ...) is a
constant here, written once."""

from __future__ import annotations

from .. import yamlio
from ..manifest_set import ManifestSet, Resource
from .load import ServiceDef

# --- platform decisions, each written once -------------------------------------------------------
ZONE = "home.keithjackson.dev"
GATEWAY = {
    "group": "gateway.networking.k8s.io",
    "kind": "Gateway",
    "name": "shared",
    "namespace": "gateway",
    "sectionName": "https",
}
EXTERNALDNS_CONTROLLER = "external-dns.alpha.kubernetes.io/controller"
EXTERNALDNS_OPT_OUT = "none"  # any value != "dns-controller" makes ExternalDNS skip it
LONGHORN_CLASS = "longhorn"
BULK_NFS_SERVER = "${BULK_NFS_SERVER}"  # Flux cluster-vars knob, substituted per env
BULK_MOUNT_OPTIONS = ["nfsvers=4.1", "hard", "noatime", "timeo=600", "retrans=2"]
GPU_RESOURCES = {"intel-quicksync": {"limits": {"gpu.intel.com/i915": 1}}}
DNS_RESOLVER = {"namespace": "kube-system", "k8s-app": "kube-dns"}
MONITORING_NAMESPACE = "monitoring"
VPN_GATEWAY_NODE_LABEL = {"egress.home.keithjackson.dev/gateway": "gluetun"}
FORWARD_AUTH = {
    "image": "ghcr.io/keithjackson/forward-auth:1.4.0",
    "port": 4180,
    "name": "forward-auth",
    "keycloak": "https://auth.home.keithjackson.dev",
}
ANNOTATION = "platform.home.keithjackson.dev"
VM_ROOT_DISK_SIZE = "20Gi"
VM_MEMORY = "2Gi"  # no ServiceDefinition field sizes a VM yet
NAME_LABEL = "app.kubernetes.io/name"
EGRESS_LABEL = f"{ANNOTATION}/egress"


def _labels(d: ServiceDef) -> dict:
    return {NAME_LABEL: d.name}


def _meta(d: ServiceDef, name: str, namespaced=True, **extra) -> dict:
    m = {"name": name}
    if namespaced:
        m["namespace"] = d.name
    m["labels"] = _labels(d)
    m.update(extra)
    return m


def _replicas(d) -> int:
    return d.sd["availability"]["replicas"]


def _forward_auth(d) -> bool:
    return d.sd["auth"]["mode"] == "forward-auth" and bool(d.sd["ingressRoutes"])


def service_ports(d: ServiceDef) -> list[dict]:
    """Declared ports, then any ingressRoute / metrics port not already declared, then the
    forward-auth port. One list shared by the Service, the containers and the policies."""
    ports = [dict(p) for p in d.sd["ports"]]
    have = {(p["port"], p["protocol"]) for p in ports}
    extra = [(f"route-{r['port']}", r["port"]) for r in d.sd["ingressRoutes"]]
    ep = d.sd["observability"].get("metricsEndpoint")
    if ep:
        extra.append(("metrics", ep["port"]))
    for name, port in extra:
        if (port, "TCP") not in have:
            ports.append({"name": name, "port": port, "targetPort": port, "protocol": "TCP"})
            have.add((port, "TCP"))
    if _forward_auth(d):
        ports.append(
            {
                "name": FORWARD_AUTH["name"],
                "port": FORWARD_AUTH["port"],
                "targetPort": FORWARD_AUTH["port"],
                "protocol": "TCP",
            }
        )
    return ports


def _target_port(d, port: int) -> int:
    for p in service_ports(d):
        if p["port"] == port and p["protocol"] == "TCP":
            return p["targetPort"]
    return port


# --- name ------------------------------------------------------------------------------------
def _render_namespace(d):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": d.name, "labels": _labels(d)}}


# --- dependencies + default-deny baseline + egress + inClusterClients + metrics ---------------
def _render_baseline(d):
    deny = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _meta(d, "default-deny"),
        "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
    }
    dns = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _meta(d, "allow-dns"),
        "spec": {
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [
                {
                    "to": [
                        {
                            "namespaceSelector": {
                                "matchLabels": {"kubernetes.io/metadata.name": DNS_RESOLVER["namespace"]}
                            },
                            "podSelector": {"matchLabels": {"k8s-app": DNS_RESOLVER["k8s-app"]}},
                        }
                    ],
                    "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
                }
            ],
        },
    }
    return [deny, dns]


def _cnp(d, name, spec):
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": _meta(d, name),
        "spec": {"endpointSelector": {"matchLabels": _labels(d)}, **spec},
    }


def _to_ports(pairs):
    return [{"ports": [{"port": str(p), "protocol": proto} for p, proto in pairs]}]


def _render_dependencies(d):
    out = []
    for dep in d.sd["dependencies"]:
        out.append(
            _cnp(
                d,
                f"egress-{dep['to']}-{dep['port']}-{dep['protocol'].lower()}",
                {
                    "egress": [
                        {
                            "toEndpoints": [
                                {
                                    "matchLabels": {
                                        "k8s:io.kubernetes.pod.namespace": dep["to"],
                                        f"k8s:{NAME_LABEL}": dep["to"],
                                    }
                                }
                            ],
                            "toPorts": _to_ports([(dep["port"], dep["protocol"])]),
                        }
                    ]
                },
            )
        )
    return out


def _render_ingress_allows(d):
    out = []
    if d.sd["ingressRoutes"]:
        ports = (
            [FORWARD_AUTH["port"]]
            if _forward_auth(d)
            else sorted({_target_port(d, r["port"]) for r in d.sd["ingressRoutes"]})
        )
        out.append(
            _cnp(
                d,
                "ingress-gateway",
                {"ingress": [{"fromEntities": ["ingress"], "toPorts": _to_ports([(p, "TCP") for p in ports])}]},
            )
        )
    ports = service_ports(d)
    for client in d.sd["inClusterClients"]:
        out.append(
            _cnp(
                d,
                f"ingress-{client}",
                {
                    "ingress": [
                        {
                            "fromEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": client}}],
                            "toPorts": _to_ports([(p["targetPort"], p["protocol"]) for p in ports]),
                        }
                    ]
                },
            )
        )
    ep = d.sd["observability"].get("metricsEndpoint")
    if ep and d.sd["observability"]["metrics"]:
        out.append(
            _cnp(
                d,
                "ingress-metrics",
                {
                    "ingress": [
                        {
                            "fromEndpoints": [
                                {"matchLabels": {"k8s:io.kubernetes.pod.namespace": MONITORING_NAMESPACE}}
                            ],
                            "toPorts": _to_ports([(_target_port(d, ep["port"]), "TCP")]),
                        }
                    ]
                },
            )
        )
    return out


def _render_egress(d):
    if d.sd["egress"] == "internet":
        return [_cnp(d, "egress-internet", {"egress": [{"toEntities": ["world"]}]})]
    # vpn: world traffic is allowed by policy but can only leave through the egress gateway
    # nodes (Cilium drops it when no gateway matches: that is the fail-closed kill-switch).
    allow = _cnp(d, "egress-internet-via-vpn", {"egress": [{"toEntities": ["world"]}]})
    steer = {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumEgressGatewayPolicy",
        "metadata": {"name": f"vpn-{d.name}", "labels": _labels(d)},
        "spec": {
            "selectors": [{"podSelector": {"matchLabels": {**_labels(d), "io.kubernetes.pod.namespace": d.name}}}],
            "destinationCIDRs": ["0.0.0.0/0"],
            "egressGateway": {"nodeSelector": {"matchLabels": VPN_GATEWAY_NODE_LABEL}},
        },
    }
    return [allow, steer]


# --- storage -----------------------------------------------------------------------------------
def bulk_pv_name(d, s) -> str:
    return f"{d.name}-{s['name']}"


def _access_modes(s):
    if s["class"] == "longhorn":
        return ["ReadWriteOnce"]
    return ["ReadOnlyMany"] if s["readOnly"] else ["ReadWriteMany"]


def _pvc_spec(d, s):
    if s["class"] == "longhorn":
        return {
            "accessModes": _access_modes(s),
            "storageClassName": LONGHORN_CLASS,
            "resources": {"requests": {"storage": s["size"]}},
        }
    return {
        "accessModes": _access_modes(s),
        "storageClassName": "",
        "volumeName": bulk_pv_name(d, s),
        "resources": {"requests": {"storage": s["size"]}},
    }


def render_bulk_pv(d, s) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": bulk_pv_name(d, s), "labels": _labels(d)},
        "spec": {
            "capacity": {"storage": s["size"]},
            "accessModes": _access_modes(s),
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": "",
            "mountOptions": list(BULK_MOUNT_OPTIONS),
            "nfs": {"server": BULK_NFS_SERVER, "path": s["export"], "readOnly": s["readOnly"]},
            "claimRef": {"namespace": d.name, "name": s["name"]},
        },
    }


def render_pvc(d, s) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": _meta(d, s["name"]),
        "spec": _pvc_spec(d, s),
    }


def _per_replica(d, s) -> bool:
    return _replicas(d) > 1 and s["class"] == "longhorn"


def _render_storage(d):
    if d.sd["kind"] == "vm":
        return []  # VM disks are CDI DataVolumes inside the VirtualMachine
    out = []
    for s in d.sd["storage"]:
        if s["class"] == "bulk":
            out.append(render_bulk_pv(d, s))
        if not _per_replica(d, s):
            out.append(render_pvc(d, s))
    return out


# --- kind + source + hardware + auth + availability --------------------------------------------
def _app_container(d):
    c = {"name": d.name, "image": d.sd["source"]["image"]}
    cports = []
    seen = set()
    for p in service_ports(d):
        if p["name"] == FORWARD_AUTH["name"] or (p["targetPort"], p["protocol"]) in seen:
            continue
        seen.add((p["targetPort"], p["protocol"]))
        cports.append({"name": p["name"], "containerPort": p["targetPort"], "protocol": p["protocol"]})
    if cports:
        c["ports"] = cports
    mounts = []
    for s in d.sd["storage"]:
        m = {"name": s["name"], "mountPath": s["mountPath"]}
        if "subPath" in s:
            m["subPath"] = s["subPath"]
        if s["readOnly"]:
            m["readOnly"] = True
        mounts.append(m)
    if mounts:
        c["volumeMounts"] = mounts
    gpu = d.sd.get("hardware", {}).get("gpu")
    if gpu:
        c["resources"] = {k: dict(v) for k, v in GPU_RESOURCES[gpu].items()}
    return c


def _auth_container(d):
    args = [f"--http-address=0.0.0.0:{FORWARD_AUTH['port']}", f"--issuer={FORWARD_AUTH['keycloak']}"]
    for r in d.sd["ingressRoutes"]:
        args.append(f"--upstream={r['host']}=http://127.0.0.1:{_target_port(d, r['port'])}")
    args += [f"--api-route={r}" for r in d.sd["auth"]["apiRoutes"]]
    return {
        "name": FORWARD_AUTH["name"],
        "image": FORWARD_AUTH["image"],
        "args": args,
        "ports": [{"name": FORWARD_AUTH["name"], "containerPort": FORWARD_AUTH["port"], "protocol": "TCP"}],
    }


def _pod_template(d):
    labels = _labels(d)
    if d.sd["egress"] == "vpn":
        labels = {**labels, EGRESS_LABEL: "vpn"}
    spec = {}
    if _replicas(d) > 1:
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": _labels(d)}, "topologyKey": "kubernetes.io/hostname"}
                ]
            }
        }
    spec["containers"] = [_app_container(d)] + ([_auth_container(d)] if _forward_auth(d) else [])
    vols = [
        {"name": s["name"], "persistentVolumeClaim": {"claimName": s["name"]}}
        for s in d.sd["storage"]
        if not _per_replica(d, s)
    ]
    if vols:
        spec["volumes"] = vols
    return {"metadata": {"labels": labels}, "spec": spec}


def _workload_annotations(d):
    u = d.sd["update"]
    return {
        f"{ANNOTATION}/update-channel": u["channel"],
        f"{ANNOTATION}/auto-rollback": "true" if u["autoRollbackOnFailedHealth"] else "false",
    }


def _render_workload(d):
    if d.sd["kind"] == "vm":
        return [_render_vm(d)]
    meta = _meta(d, d.name, annotations=_workload_annotations(d))
    selector = {"matchLabels": _labels(d)}
    if _replicas(d) == 1:
        spec = {"replicas": 1, "selector": selector}
        if d.sd["storage"]:
            spec["strategy"] = {"type": "Recreate"}
        spec["template"] = _pod_template(d)
        return [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}]
    spec = {
        "replicas": _replicas(d),
        "serviceName": d.name,
        "podManagementPolicy": "Parallel",
        "selector": selector,
        "template": _pod_template(d),
    }
    vcts = [{"metadata": {"name": s["name"]}, "spec": _pvc_spec(d, s)} for s in d.sd["storage"] if _per_replica(d, s)]
    if vcts:
        spec["volumeClaimTemplates"] = vcts
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta, "spec": spec}
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": _meta(d, d.name),
        "spec": {"minAvailable": 1, "selector": selector},
    }
    return [sts, pdb]


def _render_vm(d):
    url = d.sd["source"]["vmTemplate"]
    src = {"registry": {"url": url}} if url.startswith("docker://") else {"http": {"url": url}}
    dvts = [
        {
            "metadata": {"name": f"{d.name}-root"},
            "spec": {
                "source": src,
                "storage": {
                    "storageClassName": LONGHORN_CLASS,
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": VM_ROOT_DISK_SIZE}},
                },
            },
        }
    ]
    disks = [{"name": "root", "disk": {"bus": "virtio"}}]
    volumes = [{"name": "root", "dataVolume": {"name": f"{d.name}-root"}}]
    for s in d.sd["storage"]:  # longhorn only (bulk rejected for vm at load time)
        dvts.append(
            {
                "metadata": {"name": f"{d.name}-{s['name']}"},
                "spec": {
                    "source": {"blank": {}},
                    "storage": {
                        "storageClassName": LONGHORN_CLASS,
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": s["size"]}},
                    },
                },
            }
        )
        disks.append({"name": s["name"], "disk": {"bus": "virtio"}})
        volumes.append({"name": s["name"], "dataVolume": {"name": f"{d.name}-{s['name']}"}})
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": _meta(d, d.name, annotations=_workload_annotations(d)),
        "spec": {
            "runStrategy": "Always",
            "dataVolumeTemplates": dvts,
            "template": {
                "metadata": {"labels": _labels(d)},
                "spec": {
                    "domain": {"devices": {"disks": disks}, "resources": {"requests": {"memory": VM_MEMORY}}},
                    "volumes": volumes,
                },
            },
        },
    }


def _render_service(d):
    ports = service_ports(d)
    if not ports:
        return []
    return [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(d, d.name),
            "spec": {
                "selector": _labels(d),
                "ports": [
                    {"name": p["name"], "port": p["port"], "targetPort": p["targetPort"], "protocol": p["protocol"]}
                    for p in ports
                ],
            },
        }
    ]


# --- exposure + ingressRoutes ---------------------------------------------------------------------
def externaldns_route_annotations(exposure: str) -> dict:
    """Derived from `exposure` and nothing else (internal -> no public DNS record)."""
    return {EXTERNALDNS_CONTROLLER: EXTERNALDNS_OPT_OUT} if exposure == "internal" else {}


def _render_routes(d):
    out = []
    for r in d.sd["ingressRoutes"]:
        label = r["host"].split(".", 1)[0]
        meta = _meta(d, label)
        ann = externaldns_route_annotations(d.sd["exposure"])
        if ann:
            meta["annotations"] = ann
        port = FORWARD_AUTH["port"] if _forward_auth(d) else r["port"]
        out.append(
            {
                "apiVersion": "gateway.networking.k8s.io/v1",
                "kind": "HTTPRoute",
                "metadata": meta,
                "spec": {
                    "parentRefs": [dict(GATEWAY)],
                    "hostnames": [r["host"]],
                    "rules": [
                        {
                            "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                            "backendRefs": [{"name": d.name, "port": port}],
                        }
                    ],
                },
            }
        )
    return out


# --- observability --------------------------------------------------------------------------------
_SLI = {
    "Deployment": 'kube_deployment_status_replicas_available{{namespace="{ns}",deployment="{n}"}}',
    "StatefulSet": 'kube_statefulset_status_replicas_ready{{namespace="{ns}",statefulset="{n}"}}',
    "VirtualMachineInstance": 'kubevirt_vmi_info{{namespace="{ns}",name="{n}",phase="running"}}',
}


def _render_observability(d):
    obs = d.sd["observability"]
    if not obs["metrics"]:
        return []
    lw = obs["livenessWorkload"]
    out = [
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "PrometheusRule",
            "metadata": _meta(d, f"{d.name}-up"),
            "spec": {
                "groups": [
                    {
                        "name": f"{d.name}.sli",
                        "rules": [
                            {
                                "record": "sli:up",
                                "expr": f"max({_SLI[lw['kind']].format(ns=d.name, n=lw['name'])}) > bool 0",
                                "labels": {"service": d.name, "workload_kind": lw["kind"]},
                            }
                        ],
                    }
                ]
            },
        }
    ]
    ep = obs.get("metricsEndpoint")
    if ep:
        pname = next(p["name"] for p in service_ports(d) if p["port"] == ep["port"])
        out.append(
            {
                "apiVersion": "monitoring.coreos.com/v1",
                "kind": "ServiceMonitor",
                "metadata": _meta(d, d.name),
                "spec": {"selector": {"matchLabels": _labels(d)}, "endpoints": [{"port": pname, "path": ep["path"]}]},
            }
        )
    return out


def render_service(d: ServiceDef) -> list[dict]:
    """Every object for one ServiceDefinition, in a fixed order (Namespace first)."""
    objs = [_render_namespace(d)]
    for part in (
        _render_baseline,
        _render_dependencies,
        _render_ingress_allows,
        _render_egress,
        _render_storage,
        _render_workload,
        _render_service,
        _render_routes,
        _render_observability,
    ):
        objs += part(d)
    return objs


def resource_path(service: str, index: int, obj: dict) -> str:
    return f"{service}/{index:02d}-{obj['kind'].lower()}-{obj['metadata']['name']}.yaml"


def render_catalog(defs, source: dict) -> ManifestSet:
    resources = []
    for d in defs:
        for i, obj in enumerate(render_service(d)):
            resources.append(Resource(resource_path(d.name, i, obj), yamlio.dump(obj)))
    return ManifestSet(resources, source)
