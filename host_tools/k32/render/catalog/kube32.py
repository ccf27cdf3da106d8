"""Target kube32: the same ServiceDefinitions -> what a Kube32 cluster serves:
Namespace, a Pod (or a Deployment for several replicas) with a wasm:// image, Service, Ingress (class kube32), egress
NetworkPolicies. A field the user wrote that Kube32 cannot honour is an error naming the
field -- never silently dropped. Defaults of those fields are inert on Kube32 (docs/renderers.md)."""

from __future__ import annotations

from .. import yamlio
from ..errors import RenderError
from ..manifest_set import ManifestSet, Resource
from .k3s import NAME_LABEL
from .k3s import service_ports as _k3s_ports
from .load import ServiceDef

INGRESS_CLASS = "kube32"
CLUSTER_SUBNET = "192.168.4.0/24"  # the control plane's cluster access point (AP at 192.168.4.1)
WASM_PREFIX = "wasm://"


def _unsupported(d: ServiceDef):
    """(field path, reason) for every declared field with no Kube32 meaning."""
    sd = d.sd
    if sd["kind"] == "vm":
        yield "kind", "vm: Kube32 runs WebAssembly pods, not virtual machines"
    elif not sd["source"]["image"].startswith(WASM_PREFIX):
        yield "source.image", f"Kube32 pods run {WASM_PREFIX} images"
    if sd["storage"]:
        yield "storage", "Kube32 has no PersistentVolumes"
    if sd.get("hardware", {}).get("gpu"):
        yield "hardware.gpu", "Kube32 nodes have no GPU"
    if sd["egress"] == "vpn":
        yield "egress", "vpn: Kube32 has no VPN egress gateway"
    for i, dep in enumerate(sd["dependencies"]):
        if dep["protocol"] != "TCP":
            yield f"dependencies[{i}].protocol", "Kube32 NetworkPolicy matches TCP only"
    for i, p in enumerate(sd["ports"]):
        if p["protocol"] != "TCP":
            yield f"ports[{i}].protocol", "Kube32 Services carry TCP (HTTP) only"
    if d.declared("observability", "metricsEndpoint"):
        yield "observability.metricsEndpoint", "Kube32 has no Prometheus ServiceMonitor"
    if d.declared("auth") and sd["auth"]["mode"] == "forward-auth" and sd["ingressRoutes"]:
        yield "auth", "Kube32's Ingress controller has no forward-auth proxy (declare mode: none)"
    if d.declared("update"):
        yield "update", "Kube32 has no update channels"
    if d.declared("inClusterClients"):
        yield "inClusterClients", "Kube32 does not enforce NetworkPolicy ingress rules"


def check_supported(d: ServiceDef) -> None:
    problems = list(_unsupported(d))
    if problems:  # name every field at once: fixing one should not reveal the next
        raise RenderError("unsupported_on_kube32", f"{d.origin}: " + "; ".join(f"{f}: {why}" for f, why in problems))


def _meta(d, name, labels=True):
    m = {"name": name, "namespace": d.name}
    if labels:
        m["labels"] = {NAME_LABEL: d.name}
    return m


def _container(d):
    container = {"name": d.name, "image": d.sd["source"]["image"]}
    ports = []
    for p in _ports(d):
        if all(x["containerPort"] != p["targetPort"] for x in ports):
            ports.append({"name": p["name"], "containerPort": p["targetPort"]})
    if ports:
        container["ports"] = ports
    return container


def _workload(d):
    """One replica: a Pod (the kubelet restarts it). More: a Deployment, so the control plane
    keeps that many running, spreads them over the nodes and rolls image changes out."""
    n = d.sd["availability"]["replicas"]
    spec = {"restartPolicy": "Always", "containers": [_container(d)]}
    if n == 1:
        return [{"apiVersion": "v1", "kind": "Pod", "metadata": _meta(d, d.name), "spec": spec}]
    labels = {NAME_LABEL: d.name}
    return [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": _meta(d, d.name),
            "spec": {
                "replicas": n,
                "selector": {"matchLabels": dict(labels)},
                "template": {"metadata": {"labels": dict(labels)}, "spec": spec},
            },
        }
    ]


def _ports(d):
    # The k3s port union minus the forward-auth sidecar port (no sidecar on Kube32).
    return [p for p in _k3s_ports(d) if p["name"] != "forward-auth"]


def _service(d):
    ports = _ports(d)
    if not ports:
        return []
    return [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(d, d.name),
            "spec": {
                "selector": {NAME_LABEL: d.name},
                "ports": [{"name": p["name"], "port": p["port"], "targetPort": p["targetPort"]} for p in ports],
            },
        }
    ]


def _ingresses(d):
    out = []
    for r in d.sd["ingressRoutes"]:
        out.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "Ingress",
                "metadata": _meta(d, r["host"].split(".", 1)[0]),
                "spec": {
                    "ingressClassName": INGRESS_CLASS,
                    "rules": [
                        {
                            "host": r["host"],
                            "http": {
                                "paths": [
                                    {
                                        "path": "/",
                                        "pathType": "Prefix",
                                        "backend": {"service": {"name": d.name, "port": {"number": r["port"]}}},
                                    }
                                ]
                            },
                        }
                    ],
                },
            }
        )
    return out


def _policies(d):
    select = {"matchLabels": {NAME_LABEL: d.name}}
    out = [
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": _meta(d, "default-deny", labels=False),
            "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": []},
        }
    ]
    for dep in d.sd["dependencies"]:
        # Kube32 matches `port` against the target port of the pod behind the Service.
        out.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": _meta(d, f"egress-{dep['to']}-{dep['port']}"),
                "spec": {
                    "podSelector": select,
                    "policyTypes": ["Egress"],
                    "egress": [
                        {
                            "to": [
                                {
                                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": dep["to"]}},
                                    "podSelector": {"matchLabels": {NAME_LABEL: dep["to"]}},
                                }
                            ],
                            "ports": [{"protocol": "TCP", "port": dep["port"]}],
                        }
                    ],
                },
            }
        )
    if d.sd["egress"] == "internet":
        out.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": _meta(d, "egress-internet"),
                "spec": {
                    "podSelector": select,
                    "policyTypes": ["Egress"],
                    "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": [CLUSTER_SUBNET]}}]}],
                },
            }
        )
    return out


def render_service(d: ServiceDef) -> list[dict]:
    check_supported(d)
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": d.name, "labels": {NAME_LABEL: d.name}}}
    # Policies before pods: a Kube32 worker denies calls until it has loaded them anyway,
    # but applying them first means no pod ever runs unrestricted.
    return [ns] + _policies(d) + _service(d) + _workload(d) + _ingresses(d)


def render_catalog(defs, source: dict) -> ManifestSet:
    resources = []
    for d in defs:
        for i, obj in enumerate(render_service(d)):
            path = f"{d.name}/{i:02d}-{obj['kind'].lower()}-{obj['metadata']['name']}.yaml"
            resources.append(Resource(path, yamlio.dump(obj)))
    return ManifestSet(resources, source)
