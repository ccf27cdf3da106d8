"""Flattens the served definitions into the C++ schema table (firmware/src/core/openapi/
schema_table.h): one node per named definition and per inline array/map, object fields
sorted by name, and the patch metadata (list type, merge key, strategy) on list/map nodes."""

import json

from . import proto_fields
from .kinds import SERVED_KINDS
from .source import REF_PREFIX

T_ANY, T_OBJECT, T_MAP, T_ARRAY, T_STRING, T_INTEGER, T_NUMBER, T_BOOLEAN, T_INT_OR_STRING, T_QUANTITY = (
    "Any",
    "Object",
    "Map",
    "Array",
    "String",
    "Integer",
    "Number",
    "Boolean",
    "IntOrString",
    "Quantity",
)
_SCALARS = {"string": T_STRING, "integer": T_INTEGER, "number": T_NUMBER, "boolean": T_BOOLEAN}
_LIST_TYPES = {None: "None", "atomic": "Atomic", "set": "Set", "map": "Map"}
_STRATEGIES = {"merge": "kMerge", "retainKeys": "kRetainKeys", "replace": "kReplace"}


class TableError(Exception):
    pass


class Table:
    def __init__(self, defs):
        self.defs = defs
        self.nodes = [dict(type=T_ANY)]  # node 0: anything goes
        self.fields = []
        self.field_owner = []  # the definition (or inline path) each field belongs to
        self.named = {}

    def node_for(self, s, where) -> int:
        ref = s.get("$ref")
        if ref:
            return self.named_node(ref[len(REF_PREFIX) :])
        return self._inline(s, where)

    def named_node(self, name) -> int:
        if name in self.named:
            return self.named[name]
        if name not in self.defs:
            raise TableError(f"{name}: referenced but not defined")
        idx = len(self.nodes)
        self.nodes.append(None)  # reserve: definitions can be recursive
        self.named[name] = idx
        self.nodes[idx] = self._build(self.defs[name], name)
        self.nodes[idx]["codec"] = proto_fields.node_codec(name, self.defs[name])
        return idx

    def _inline(self, s, where) -> int:
        n = self._build(s, where)
        if n["type"] == T_ANY and len(n) == 1:
            return 0
        n["codec"] = proto_fields.node_codec(None, s)
        self.nodes.append(n)
        return len(self.nodes) - 1

    def _build(self, s, where) -> dict:
        t = s.get("type")
        fmt = s.get("format")
        if t == "string" and fmt == "int-or-string":
            return dict(type=T_INT_OR_STRING)
        if t == "string" and fmt == "quantity":
            return dict(type=T_QUANTITY)
        if t in _SCALARS:
            return dict(type=_SCALARS[t])
        if t == "array":
            node = dict(type=T_ARRAY)
            node["elem"] = self.node_for(s.get("items", {}), where + "[]")
            lt = s.get("x-kubernetes-list-type")
            if lt not in _LIST_TYPES:
                raise TableError(f"{where}: unknown x-kubernetes-list-type {lt!r}")
            node["list_type"] = _LIST_TYPES[lt]
            node["merge_key"] = s.get("x-kubernetes-patch-merge-key")
            node["map_keys"] = list(s.get("x-kubernetes-list-map-keys", []))
            node["strategy"] = self._strategy(s, where)
            return node
        if t in ("object", None):
            props = s.get("properties")
            addl = s.get("additionalProperties")
            if props:
                fields = []
                for name in sorted(props):
                    default = props[name].get("default")
                    fields.append(
                        (
                            name,
                            self.node_for(props[name], f"{where}.{name}"),
                            None if default is None else json.dumps(default, sort_keys=True),
                        )
                    )
                first = len(self.fields)
                self.fields.extend(fields)
                self.field_owner.extend([where] * len(fields))
                return dict(type=T_OBJECT, first_field=first, n_fields=len(fields), strategy=self._strategy(s, where))
            if isinstance(addl, dict):
                return dict(type=T_MAP, elem=self.node_for(addl, where + "{}"), strategy=self._strategy(s, where))
            return dict(type=T_ANY)
        raise TableError(f"{where}: unsupported schema type {t!r}")

    @staticmethod
    def _strategy(s, where):
        raw = s.get("x-kubernetes-patch-strategy")
        if not raw:
            return []
        out = []
        for part in raw.split(","):
            if part not in _STRATEGIES:
                raise TableError(f"{where}: unknown x-kubernetes-patch-strategy {part!r}")
            out.append(_STRATEGIES[part])
        return out


# Bodies that are not kinds of their own but come in every served group version: a client's
# typed DELETE sends its DeleteOptions in protobuf as "<group version>/DeleteOptions"
# (kubectl drain does, from 1.30 on).
_OPTIONS_DEFINITIONS = {"DeleteOptions": "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"}


def build_table(defs):
    table = Table(defs)
    kinds = [(k.key, table.named_node(k.definition)) for k in SERVED_KINDS]
    versions = sorted({k.api_version for k in SERVED_KINDS})
    for name, definition in _OPTIONS_DEFINITIONS.items():
        node = table.named_node(definition)
        kinds += [(f"{gv}/{name}", node) for gv in versions]
    return table, kinds


def _emit_proto(table):
    """kProtoFields / kNodeCodecs (core/openapi/proto_table.h), parallel to kFields / kNodes."""
    numbers = proto_fields.load()
    out = ["const ProtoField kProtoFields[] = {"]
    for (name, _node, _default), owner in zip(table.fields, table.field_owner):
        number, via, omit_zero = proto_fields.field_entry(numbers, owner, name)
        out.append(f"  {{{number}, {via}, {'true' if omit_zero else 'false'}}},")
    out.append("};")
    out.append("const uint8_t kNodeCodecs[] = {")
    codecs = [str(n.get("codec", 0)) for n in table.nodes]
    for i in range(0, len(codecs), 32):
        out.append("  " + ", ".join(codecs[i : i + 32]) + ",")
    out.append("};")
    return out


def _c_str(s):
    return "nullptr" if s is None else '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit_cpp(defs) -> str:
    table, kinds = build_table(defs)
    if len(table.nodes) > 0xFFFF or len(table.fields) > 0xFFFF:
        raise TableError("schema table exceeds 16-bit indices")
    out = [
        "// Generated by `python -m k32.apigen` from the upstream Kubernetes schemas. Do not edit.",
        '#include "core/openapi/schema_table.h"',
        '#include "core/openapi/proto_table.h"',
        "",
        "namespace k32 {",
        "namespace schema {",
        "",
    ]
    keys = []
    for i, n in enumerate(table.nodes):
        if n.get("map_keys"):
            keys.append(f"static const char* const kMapKeys{i}[] = {{{', '.join(_c_str(k) for k in n['map_keys'])}}};")
    out += keys + [""]
    out.append("const Field kFields[] = {")
    for name, node, default in table.fields:
        out.append(f"  {{{_c_str(name)}, {node}, {_c_str(default)}}},")
    out.append("};")
    out.append("const Node kNodes[] = {")
    for i, n in enumerate(table.nodes):
        strat = " | ".join(n.get("strategy") or []) or "0"
        mk = f"kMapKeys{i}" if n.get("map_keys") else "nullptr"
        out.append(
            f"  {{Type::{n['type']}, ListType::{n.get('list_type', 'None')}, static_cast<uint8_t>({strat}), "
            f"{len(n.get('map_keys') or [])}, {n.get('elem', 0)}, {n.get('first_field', 0)}, "
            f"{n.get('n_fields', 0)}, {_c_str(n.get('merge_key'))}, {mk}}},  // {i}"
        )
    out.append("};")
    out.append(f"const uint16_t kNodeCount = {len(table.nodes)};")
    out.append("const KindRoot kKinds[] = {")
    for key, node in kinds:
        out.append(f"  {{{_c_str(key)}, {node}}},")
    out.append("};")
    out.append(f"const uint16_t kKindCount = {len(kinds)};")
    out += _emit_proto(table)
    out += ["", "}  // namespace schema", "}  // namespace k32", ""]
    return "\n".join(out)
