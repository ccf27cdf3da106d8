"""What the Kube32 API server serves, and the one table of patch metadata we add on top of
the upstream schemas.

The served kinds are read from the firmware's kinds table
(firmware/src/core/api/kinds/kinds.def), the one list of them: adding a row there serves the
kind's schema, OpenAPI paths and protobuf decoding with no change here. Everything else in
the generator (documents, paths, the C++ schema table) is derived from that table, the
tables below and the upstream JSON schemas."""

import re
from dataclasses import dataclass
from pathlib import Path

KINDS_TABLE = Path(__file__).resolve().parents[3] / "firmware/src/core/api/kinds/kinds.def"

# The row layout of kinds.def: K32_KIND(group, version, resource, kind, singular, namespaced,
# read_only, short_names, categories, subresources, strategy).
_FIELDS = (
    "group",
    "version",
    "plural",
    "kind",
    "singular",
    "namespaced",
    "read_only",
    "short_names",
    "categories",
    "subresources",
    "strategy",
)
_ROW = re.compile(r"^K32_KIND\((.*)\)\s*$")
_TOKEN = re.compile(r'\s*("[^"\\]*"|true|false|[A-Za-z_]\w*)\s*(?:,|$)')


class KindsTableError(ValueError):
    pass


@dataclass(frozen=True)
class Kind:
    group: str  # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    definition: str  # upstream definition name
    status: bool = False  # has a /status subresource
    scale: bool = False  # has a /scale subresource (autoscaling/v1 Scale)

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


def _parse_row(text: str, where: str) -> dict:
    values, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise KindsTableError(f"{where}: cannot read the row after {text[:pos]!r}")
        tok = m.group(1)
        values.append(tok[1:-1] if tok.startswith('"') else {"true": True, "false": False}.get(tok, tok))
        pos = m.end()
    if len(values) != len(_FIELDS):
        raise KindsTableError(f"{where}: {len(values)} fields, expected {len(_FIELDS)} ({', '.join(_FIELDS)})")
    row = dict(zip(_FIELDS, values))
    for name in ("namespaced", "read_only"):
        if not isinstance(row[name], bool):
            raise KindsTableError(f"{where}: {name} must be true or false")
    return row


def read_kinds_table(path: Path = KINDS_TABLE) -> tuple:
    """The served kinds in table order. Kubernetes names every built-in kind's schema
    io.k8s.api.<first label of the group, "core" for "">.<version>.<Kind>."""
    kinds = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = _ROW.match(line.strip())
        if not m:
            continue
        row = _parse_row(m.group(1), f"{path.name}:{n}")
        package = row["group"].split(".")[0] if row["group"] else "core"
        kinds.append(
            Kind(
                row["group"],
                row["version"],
                row["kind"],
                row["plural"],
                row["namespaced"],
                f"io.k8s.api.{package}.{row['version']}.{row['kind']}",
                status="status" in row["subresources"].split(","),
                scale="scale" in row["subresources"].split(","),
            )
        )
    if not kinds:
        raise KindsTableError(f"{path}: no K32_KIND rows")
    return tuple(kinds)


SERVED_KINDS = read_kinds_table()

# The body of every /scale subresource.
SCALE_DEFINITION = "io.k8s.api.autoscaling.v1.Scale"

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
# Meta types every document carries even when no served kind references them.
META_DEFINITIONS = tuple(
    _META + n
    for n in (
        "ObjectMeta",
        "ListMeta",
        "Status",
        "WatchEvent",
        "DeleteOptions",
        "Patch",
        "APIResourceList",
        "APIGroupList",
        "APIGroup",
        "APIVersions",
    )
)

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
    ("io.k8s.api.apps.v1.DeploymentSpec", "strategy"): ("retainKeys", None),
    ("io.k8s.api.apps.v1.DeploymentStatus", "conditions"): ("merge", "type"),
    ("io.k8s.api.apps.v1.ReplicaSetStatus", "conditions"): ("merge", "type"),
}

# Defaults Kubernetes applies to list-map key fields before merging (its OpenAPI v3 documents
# carry them as "default"); server-side apply needs them to key {"containerPort": 80} and
# {"containerPort": 80, "protocol": "TCP"} as the same element.
# (definition, property) -> default value
FIELD_DEFAULTS = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
}
