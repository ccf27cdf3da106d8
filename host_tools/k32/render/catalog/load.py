"""Load a catalog directory: strict YAML, the shipped JSON Schema, cross-file rules, then
the defaults materialised (first materialise the schema defaults, then map, so an absent
field renders from its default, never "not at all").

The schema is the one source of truth for defaults: `materialise` reads them from its
`default` keywords. Only the defaults that depend on other fields (mountPath, targetPort,
livenessWorkload) are derived here, each with the rule it implements."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jsonschema

from .. import yamlio
from ..errors import RenderError

SCHEMA_FILE = "servicedefinition.schema.json"
SUFFIXES = (".yaml", ".yml")


def schema() -> dict:
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text())


@dataclass(frozen=True)
class ServiceDef:
    origin: str  # the file it came from, for error messages
    raw: dict  # as written (what the user declared)
    sd: dict  # defaults materialised

    @property
    def name(self) -> str:
        return self.sd["name"]

    def declared(self, *path) -> bool:
        """True when the user wrote this field (not a materialised default)."""
        node = self.raw
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        return True


def _path_str(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(document)"


def _schema_error(origin: str, errors) -> RenderError:
    errors = sorted(errors, key=lambda e: (len(e.absolute_path), _path_str(e.absolute_path)))
    e = errors[0]
    path = _path_str(e.absolute_path)
    if e.validator == "oneOf" and list(e.absolute_path) == ["source"]:
        msg = "exactly one of source.image, source.vmTemplate is required"
    elif e.validator == "additionalProperties":
        msg = e.message.replace("Additional properties are not allowed", "unknown field")
    elif e.validator in ("then", "else", "not") and "export" in e.message:
        msg = "export is required for class bulk and not allowed for class longhorn"
    else:
        msg = e.message
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return RenderError("schema", f"{origin}: {path}: {msg} [rule: {e.validator}]{more}")


def materialise(node_schema: dict, value, root: dict):
    """Fill schema defaults into `value` (a deep copy is returned)."""
    if "$ref" in node_schema:
        node_schema = root["$defs"][node_schema["$ref"].rsplit("/", 1)[1]]
    if isinstance(value, dict) and "properties" in node_schema:
        out = {}
        for key, sub in node_schema["properties"].items():
            if key in value:
                out[key] = materialise(sub, value[key], root)
            elif "default" in sub:
                out[key] = materialise(sub, copy.deepcopy(sub["default"]), root)
        return out
    if isinstance(value, list) and "items" in node_schema:
        return [materialise(node_schema["items"], v, root) for v in value]
    return value


def _derive(sd: dict) -> None:
    for s in sd["storage"]:
        s.setdefault("mountPath", f"/data/{s['name']}")  # default: /data/<name>
    for p in sd["ports"]:
        p.setdefault("targetPort", p["port"])
    obs = sd["observability"]
    if "livenessWorkload" not in obs:  # default: the rendered workload's kind
        if sd["kind"] == "vm":
            kind = "VirtualMachineInstance"
        elif sd["availability"]["replicas"] > 1:
            kind = "StatefulSet"
        else:
            kind = "Deployment"
        obs["livenessWorkload"] = {"kind": kind}
    obs["livenessWorkload"].setdefault("name", sd["name"])


def _semantic(origin: str, sd: dict) -> None:
    def fail(path, msg):
        raise RenderError("invalid_field", f"{origin}: {path}: {msg}")

    for field, key in (("storage", "name"), ("ports", "name")):
        seen = set()
        for i, item in enumerate(sd[field]):
            if item[key] in seen:
                fail(f"{field}[{i}].{key}", f"duplicate {key} {item[key]!r}")
            seen.add(item[key])
    seen = set()
    for i, p in enumerate(sd["ports"]):
        k = (p["port"], p["protocol"])
        if k in seen:
            fail(f"ports[{i}].port", f"duplicate port {p['port']}/{p['protocol']}")
        seen.add(k)
    for i, r in enumerate(sd["ingressRoutes"]):
        for j in range(i):
            if sd["ingressRoutes"][j]["host"] == r["host"]:
                fail(f"ingressRoutes[{i}].host", f"duplicate host {r['host']!r}")
    for i, d in enumerate(sd["dependencies"]):
        if d["to"] == sd["name"]:
            fail(f"dependencies[{i}].to", "a service does not depend on itself")
    if sd["name"] in sd["inClusterClients"]:
        fail("inClusterClients", "a service is not its own client")
    if sd["kind"] == "vm":
        for i, s in enumerate(sd["storage"]):
            if s["class"] == "bulk":
                fail(f"storage[{i}].class", "bulk (NFS) storage cannot be mounted into a kind vm")
        if sd["availability"]["replicas"] > 1:
            fail("availability.replicas", "kind vm runs one VirtualMachine; replicas must be 1")


def load_text(text: str, origin: str, validator=None) -> ServiceDef:
    root = schema()
    doc = yamlio.load_strict(text, origin)
    if not isinstance(doc, dict):
        raise RenderError("schema", f"{origin}: (document): must be a mapping (a ServiceDefinition)")
    validator = validator or jsonschema.Draft202012Validator(root)
    errors = list(validator.iter_errors(doc))
    if errors:
        raise _schema_error(origin, errors)
    sd = materialise(root, doc, root)
    _derive(sd)
    _semantic(origin, sd)
    return ServiceDef(origin, copy.deepcopy(doc), sd)


def load_catalog(catalog_dir) -> list[ServiceDef]:
    """Every *.yaml / *.yml in the directory (not recursive), sorted by file name."""
    root = Path(catalog_dir)
    if not root.is_dir():
        raise RenderError("no_catalog", f"{root}: not a directory")
    files = sorted(p for p in root.iterdir() if p.is_file() and p.suffix in SUFFIXES)
    if not files:
        raise RenderError("no_catalog", f"{root}: no ServiceDefinition files (*.yaml)")
    validator = jsonschema.Draft202012Validator(schema())
    defs, names, hosts = [], {}, {}
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RenderError("unreadable", f"{f}: {exc}") from None
        d = load_text(text, str(f), validator)
        if d.name in names:
            raise RenderError("duplicate_name", f"{f}: name: {d.name!r} is already defined by {names[d.name]}")
        names[d.name] = str(f)
        for i, r in enumerate(d.sd["ingressRoutes"]):
            if r["host"] in hosts:
                raise RenderError(
                    "duplicate_host",
                    f"{f}: ingressRoutes[{i}].host: {r['host']!r} is already routed by {hosts[r['host']]}",
                )
            hosts[r["host"]] = str(f)
        defs.append(d)
    return sorted(defs, key=lambda d: d.name)
