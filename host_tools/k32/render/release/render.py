"""Render a Release Template into one content-hashed manifest set.

A pure function of (template, target, evidence, weights, probe image): no clock, no
entropy, no environment. TemplateData is a fixed record (a frozen dataclass, never a map),
and every value in it -- and every value printed -- passes the strict character set."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import RenderError
from ..manifest_set import ManifestSet, Resource
from .template import Template

# The strict character set: no whitespace, quotes, colons-then-space, #, {, }, [, ], &, *,
# !, |, >, %, newline -- nothing that can start or end a YAML scalar or structure.
SAFE_VALUE = re.compile(r"^[A-Za-z0-9._/@:+-]*$")
_LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
_IMAGE = re.compile(r"^(?P<name>[a-z0-9][a-z0-9._/:-]*[a-z0-9])@(?P<digest>sha256:[0-9a-f]{64})$")
_SOURCE = re.compile(
    r"^(?P<repo>[A-Za-z0-9._-]+/[A-Za-z0-9._-]+)@(?P<rev>[0-9a-f]{40}|[0-9a-f]{64})"
    r"(?:#(?P<branch>[A-Za-z0-9._/-]+))?$"
)


def check_value(value: str, where: str) -> None:
    if not SAFE_VALUE.match(value):
        raise RenderError(
            "unsafe_value", f"{where}: {value!r} contains characters outside [A-Za-z0-9._/@:+-] (YAML injection guard)"
        )


@dataclass(frozen=True)
class Target:
    application: str
    environment: str
    cluster: str
    namespace: str

    @classmethod
    def parse(cls, text: str) -> Target:
        parts = text.split("/")
        if len(parts) != 4 or not all(re.fullmatch(_LABEL, p) for p in parts):
            raise RenderError(
                "invalid_target", f"--target {text!r}: expected APP/ENV/CLUSTER/NAMESPACE, each a lowercase DNS label"
            )
        return cls(*parts)


@dataclass(frozen=True)
class Evidence:
    """The verified artifact and source. Constructed only through `parse`, which validates."""

    image_reference: str
    image_registry: str
    image_repository: str
    image_digest: str
    source_repository: str
    source_revision: str
    source_branch: str

    @classmethod
    def parse(cls, image: str, source: str) -> Evidence:
        m = _IMAGE.match(image)
        if not m:
            raise RenderError("invalid_image", f"--image {image!r}: expected REF@sha256:<64 hex>")
        name = m.group("name")
        first, _, rest = name.partition("/")
        if rest and ("." in first or ":" in first or first == "localhost"):
            registry, repo = first, rest
        else:
            registry, repo = "docker.io", name
        repo = re.sub(r":[A-Za-z0-9._-]+$", "", repo)  # a tag beside the digest is decoration
        s = _SOURCE.match(source)
        if not s:
            raise RenderError("invalid_source", f"--source {source!r}: expected OWNER/REPO@<commit sha>[#BRANCH]")
        return cls(
            f"{name}@{m.group('digest')}",
            registry,
            repo,
            m.group("digest"),
            s.group("repo"),
            s.group("rev"),
            s.group("branch") or "",
        )


@dataclass(frozen=True)
class TemplateData:
    """Exactly the TemplateData fields templates may use, in a fixed order (docs/renderers.md)."""

    Application: str
    Environment: str
    Cluster: str
    Namespace: str
    ImageReference: str
    ImageRegistry: str
    ImageRepository: str
    ImageDigest: str
    SourceRepository: str
    SourceRevision: str
    SourceBranch: str
    RolloutName: str
    StableServiceName: str
    CanaryServiceName: str
    AnalysisTemplateName: str
    IngressName: str
    ProbeImage: str
    Steps: tuple


def parse_weights(text: str) -> tuple[int, ...]:
    try:
        weights = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise RenderError("invalid_weights", f"--lane-weights {text!r}: expected integers like 10,50,100") from None
    if not weights or any(not 0 < w <= 100 for w in weights) or list(weights) != sorted(set(weights)):
        raise RenderError("invalid_weights", f"--lane-weights {text!r}: strictly increasing values in 1..100")
    return weights


def template_data(target: Target, ev: Evidence, weights, probe_image: str = "") -> TemplateData:
    if not weights:
        raise RenderError("invalid_weights", "a lane declares at least one weight")
    app = target.application
    data = TemplateData(
        app,
        target.environment,
        target.cluster,
        target.namespace,
        ev.image_reference,
        ev.image_registry,
        ev.image_repository,
        ev.image_digest,
        ev.source_repository,
        ev.source_revision,
        ev.source_branch,
        app,
        f"{app}-stable",
        f"{app}-canary",
        f"{app}-success-rate",
        app,
        probe_image,
        tuple(weights[:-1]),
    )
    for field, value in vars(data).items():
        if isinstance(value, str):
            check_value(value, field)
    return data


def render(t: Template, target: Target, ev: Evidence, weights, probe_image: str = "") -> ManifestSet:
    t.require_loaded()
    data = template_data(target, ev, weights, probe_image)
    resources = []
    for path in t.resource_paths():
        text = t.parsed(path).execute(data, check_value)
        resources.append(Resource(path[: -len(".tmpl")], text.encode("utf-8")))
    pin = ev.image_digest.encode()
    if not any(pin in r.data for r in resources):
        raise RenderError(
            "unpinned_template",
            f"no rendered resource contains the verified digest "
            f"{ev.image_digest}; the pod template must use .ImageReference or .ImageDigest",
        )
    source = {
        "renderer": "release",
        "template": t.identity(),
        "target": vars(target),
        "image": ev.image_reference,
        "source": {"repository": ev.source_repository, "revision": ev.source_revision, "branch": ev.source_branch},
        "weights": list(weights),
    }
    return ManifestSet(resources, source)
