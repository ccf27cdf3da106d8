"""What the Kube32 API server serves: the one table of kinds, and the one table of
patch metadata we add on top of the upstream schemas.

Everything else in the generator (documents, paths, the C++ schema table) is derived
from these two tables plus the upstream JSON schemas."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    group: str          # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    definition: str     # upstream definition name
    status: bool = False  # has a /status subresource

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """The kind key the C++ side uses: "v1/Pod", "networking.k8s.io/v1/Ingress"."""
        return f"{self.api_version}/{self.kind}"

    @property
    def gv_path(self) -> str:
        """URL prefix and the OpenAPI v3 document name: "api/v1", "apis/<group>/<version>"."""
        return f"apis/{self.group}/{self.version}" if self.group else f"api/{self.version}"


def _core(kind, plural, namespaced, status=False):
    return Kind("", "v1", kind, plural, namespaced, f"io.k8s.api.core.v1.{kind}", status)


SERVED_KINDS = (
    _core("Namespace", "namespaces", False, status=True),
    _core("Node", "nodes", False, status=True),
    _core("Pod", "pods", True, status=True),
    _core("Service", "services", True, status=True),
    _core("Endpoints", "endpoints", True),
    _core("ConfigMap", "configmaps", True),
    _core("Secret", "secrets", True),
    _core("Event", "events", True),
    Kind("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True,
         "io.k8s.api.discovery.v1.EndpointSlice"),
    Kind("coordination.k8s.io", "v1", "Lease", "leases", True, "io.k8s.api.coordination.v1.Lease"),
    Kind("networking.k8s.io", "v1", "Ingress", "ingresses", True,
         "io.k8s.api.networking.v1.Ingress", status=True),
    Kind("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True,
         "io.k8s.api.networking.v1.NetworkPolicy"),
)

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
# Meta types every document carries even when no served kind references them.
META_DEFINITIONS = tuple(_META + n for n in (
    "ObjectMeta", "ListMeta", "Status", "WatchEvent", "DeleteOptions", "Patch",
    "APIResourceList", "APIGroupList", "APIGroup", "APIVersions",
))

# Patch metadata Kubernetes declares in Go struct tags (patchStrategy/patchMergeKey) for
# fields of the served kinds: the complete list, and the authority. The upstream schemas
# carry the same extensions; the generator fails when they disagree with this table in
# either direction (a changed key, or a field missing here), and fills in what upstream lacks.
# (definition, property) -> (x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key or None)
PATCH_KEYS = {
    (_META + "ObjectMeta", "finalizers"): ("merge", None),
    (_META + "ObjectMeta", "ownerReferences"): ("merge", "uid"),
    ("io.k8s.api.core.v1.PodSpec", "containers"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodSpec", "initContainers"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodSpec", "ephemeralContainers"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodSpec", "volumes"): ("merge,retainKeys", "name"),
    ("io.k8s.api.core.v1.PodSpec", "imagePullSecrets"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodSpec", "hostAliases"): ("merge", "ip"),
    ("io.k8s.api.core.v1.PodSpec", "topologySpreadConstraints"): ("merge", "topologyKey"),
    ("io.k8s.api.core.v1.PodSpec", "schedulingGates"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodSpec", "resourceClaims"): ("merge,retainKeys", "name"),
    ("io.k8s.api.core.v1.Container", "env"): ("merge", "name"),
    ("io.k8s.api.core.v1.Container", "ports"): ("merge", "containerPort"),
    ("io.k8s.api.core.v1.Container", "volumeMounts"): ("merge", "mountPath"),
    ("io.k8s.api.core.v1.Container", "volumeDevices"): ("merge", "devicePath"),
    ("io.k8s.api.core.v1.PodStatus", "conditions"): ("merge", "type"),
    ("io.k8s.api.core.v1.PodStatus", "podIPs"): ("merge", "ip"),
    ("io.k8s.api.core.v1.NodeStatus", "conditions"): ("merge", "type"),
    ("io.k8s.api.core.v1.NodeStatus", "addresses"): ("merge", "type"),
    ("io.k8s.api.core.v1.NodeSpec", "podCIDRs"): ("merge", None),
    ("io.k8s.api.core.v1.NamespaceStatus", "conditions"): ("merge", "type"),
    ("io.k8s.api.core.v1.ServiceSpec", "ports"): ("merge", "port"),
    ("io.k8s.api.core.v1.ServiceStatus", "conditions"): ("merge", "type"),
    ("io.k8s.api.core.v1.PodSpec", "evictionResponders"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodStatus", "hostIPs"): ("merge", "ip"),
    ("io.k8s.api.core.v1.PodStatus", "resourceClaimStatuses"): ("merge,retainKeys", "name"),
    ("io.k8s.api.core.v1.PodStatus", "nodeAllocatableResourceClaimStatuses"): ("merge", "resourceClaimName"),
    ("io.k8s.api.core.v1.ContainerStatus", "volumeMounts"): ("merge", "mountPath"),
    ("io.k8s.api.core.v1.ContainerStatus", "allocatedResourcesStatus"): ("merge", "name"),
    ("io.k8s.api.core.v1.EphemeralContainer", "env"): ("merge", "name"),
    ("io.k8s.api.core.v1.EphemeralContainer", "ports"): ("merge", "containerPort"),
    ("io.k8s.api.core.v1.EphemeralContainer", "volumeMounts"): ("merge", "mountPath"),
    ("io.k8s.api.core.v1.EphemeralContainer", "volumeDevices"): ("merge", "devicePath"),
    ("io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus", "mapping"): ("merge", "name"),
    ("io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus", "overhead"): ("merge", "name"),
    ("io.k8s.api.core.v1.PodVolumeHealth", "healthConditions"): ("merge", "status"),
}

# Defaults Kubernetes applies to list-map key fields before merging (its OpenAPI v3 documents
# carry them as "default"); server-side apply needs them to key {"containerPort": 80} and
# {"containerPort": 80, "protocol": "TCP"} as the same element.
# (definition, property) -> default value
FIELD_DEFAULTS = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
}
