"""A minimal protobuf writer for gnostic's openapi.v2.Document (OpenAPIv2.proto), the form
kubectl 1.20 asks for with Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf.

Only the messages the served document uses are encoded. Field numbers follow gnostic's
OpenAPIv2.proto. Maps (paths, definitions, properties) are written as repeated
Named* pairs in sorted key order so the output is deterministic. gnostic's `Any` carries
values as YAML text; JSON is valid YAML, so vendor extensions, enums and defaults are
written as compact JSON."""

import json
import struct

_VARINT, _FIXED64, _BYTES = 0, 1, 2


class EncodeError(Exception):
    """The document holds something this encoder does not know how to write."""


def _varint(n: int) -> bytes:
    if n < 0:
        n &= (1 << 64) - 1  # proto int64: two's complement, 10 bytes
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Msg:
    """Accumulates the fields of one message; proto3 defaults are skipped."""

    def __init__(self):
        self.buf = bytearray()

    def _tag(self, field, wire):
        self.buf += _varint(field << 3 | wire)

    def string(self, field, s):
        if s:
            self.bytes_(field, s.encode("utf-8"))
        return self

    def bytes_(self, field, b):
        self._tag(field, _BYTES)
        self.buf += _varint(len(b)) + b
        return self

    def msg(self, field, m: "Msg"):
        return self.bytes_(field, bytes(m.buf))

    def boolean(self, field, v):
        if v:
            self._tag(field, _VARINT)
            self.buf += b"\x01"
        return self

    def int64(self, field, v):
        if v:
            self._tag(field, _VARINT)
            self.buf += _varint(int(v))
        return self

    def double(self, field, v):
        if v:
            self._tag(field, _FIXED64)
            self.buf += struct.pack("<d", float(v))
        return self

    def strings(self, field, values):
        for s in values:
            self.bytes_(field, s.encode("utf-8"))  # repeated strings keep empty entries
        return self


def _yaml_any(value) -> Msg:
    # Any { google.protobuf.Any value = 1; string yaml = 2; }
    return Msg().string(2, json.dumps(value, sort_keys=True, separators=(",", ":")))


def _named_any(name, value) -> Msg:
    return Msg().string(1, name).msg(2, _yaml_any(value))


def _vendor(m: Msg, field, obj, where):
    for key in sorted(obj):
        if key.startswith("x-"):
            m.msg(field, _named_any(key, obj[key]))


_SCHEMA_STR = {"$ref": 1, "format": 2, "title": 3, "description": 4, "pattern": 13, "discriminator": 26}
_SCHEMA_DBL = {"multipleOf": 6, "maximum": 7, "minimum": 9}
_SCHEMA_BOOL = {"exclusiveMaximum": 8, "exclusiveMinimum": 10, "uniqueItems": 16, "readOnly": 27}
_SCHEMA_INT = {
    "maxLength": 11,
    "minLength": 12,
    "maxItems": 14,
    "minItems": 15,
    "maxProperties": 17,
    "minProperties": 18,
}


def schema(s: dict, where: str) -> Msg:
    if not isinstance(s, dict):
        raise EncodeError(f"{where}: a schema must be an object")
    m = Msg()
    for key in sorted(s):
        v = s[key]
        if key in _SCHEMA_STR:
            m.string(_SCHEMA_STR[key], v)
        elif key in _SCHEMA_DBL:
            m.double(_SCHEMA_DBL[key], v)
        elif key in _SCHEMA_BOOL:
            m.boolean(_SCHEMA_BOOL[key], v)
        elif key in _SCHEMA_INT:
            m.int64(_SCHEMA_INT[key], v)
        elif key in ("default", "example"):
            m.msg(5 if key == "default" else 30, _yaml_any(v))
        elif key == "required":
            m.strings(19, v)
        elif key == "enum":
            for e in v:
                m.msg(20, _yaml_any(e))
        elif key == "additionalProperties":
            item = Msg()
            if isinstance(v, bool):
                item._tag(2, _VARINT)
                item.buf += b"\x01" if v else b"\x00"
            else:
                item.msg(1, schema(v, f"{where}.additionalProperties"))
            m.msg(21, item)
        elif key == "type":
            m.msg(22, Msg().strings(1, [v] if isinstance(v, str) else v))
        elif key == "items":
            items = v if isinstance(v, list) else [v]
            m.msg(23, _items(items, f"{where}.items"))
        elif key == "allOf":
            for i, sub in enumerate(v):
                m.msg(24, schema(sub, f"{where}.allOf[{i}]"))
        elif key == "properties":
            props = Msg()
            for name in sorted(v):
                props.msg(1, Msg().string(1, name).msg(2, schema(v[name], f"{where}.{name}")))
            m.msg(25, props)
        elif key.startswith("x-"):
            pass  # written below, in one sorted run
        else:
            raise EncodeError(f"{where}: schema keyword {key!r} has no gnostic field")
    _vendor(m, 31, s, where)
    return m


def _items(items, where) -> Msg:
    out = Msg()
    for i, it in enumerate(items):
        out.msg(1, schema(it, f"{where}[{i}]"))
    return out


# QueryParameterSubSchema / PathParameterSubSchema field numbers.
_QUERY = {"required": 1, "in": 2, "description": 3, "name": 4, "type": 6, "format": 7, "uniqueItems": 20}
_PATH = {"required": 1, "in": 2, "description": 3, "name": 4, "type": 5, "format": 6, "uniqueItems": 19}


def _parameter(p: dict, where) -> Msg:
    if p.get("in") == "body":
        body = (
            Msg()
            .string(1, p.get("description", ""))
            .string(2, p["name"])
            .string(3, "body")
            .boolean(4, p.get("required", False))
            .msg(5, schema(p["schema"], f"{where}.schema"))
        )
        param = Msg().msg(1, body)
    else:
        table, choice = {"query": (_QUERY, 3), "path": (_PATH, 4)}.get(p.get("in"), (None, None))
        if table is None:
            raise EncodeError(f"{where}: parameter location {p.get('in')!r} is not supported")
        sub = Msg()
        for key, num in sorted(table.items(), key=lambda kv: kv[1]):
            if key not in p:
                continue
            if key in ("required", "uniqueItems"):
                sub.boolean(num, p[key])
            else:
                sub.string(num, p[key])
        param = Msg().msg(2, Msg().msg(choice, sub))
    return Msg().msg(1, param)  # ParametersItem.parameter


def _responses(rs: dict, where) -> Msg:
    out = Msg()
    for code in sorted(rs):
        r = rs[code]
        resp = Msg().string(1, r.get("description", ""))
        if "schema" in r:
            resp.msg(2, Msg().msg(1, schema(r["schema"], f"{where}.{code}.schema")))
        out.msg(1, Msg().string(1, code).msg(2, Msg().msg(1, resp)))
    return out


def _operation(op: dict, where) -> Msg:
    m = Msg().strings(1, op.get("tags", [])).string(2, op.get("summary", ""))
    m.string(3, op.get("description", "")).string(5, op.get("operationId", ""))
    m.strings(6, op.get("produces", [])).strings(7, op.get("consumes", []))
    for i, p in enumerate(op.get("parameters", [])):
        m.msg(8, _parameter(p, f"{where}.parameters[{i}]"))
    m.msg(9, _responses(op.get("responses", {}), f"{where}.responses"))
    m.strings(10, op.get("schemes", []))
    _vendor(m, 13, op, where)
    return m


_PATH_ITEM_OPS = {"get": 2, "put": 3, "post": 4, "delete": 5, "options": 6, "head": 7, "patch": 8}


def _path_item(item: dict, where) -> Msg:
    m = Msg()
    for verb, num in sorted(_PATH_ITEM_OPS.items(), key=lambda kv: kv[1]):
        if verb in item:
            m.msg(num, _operation(item[verb], f"{where}.{verb}"))
    for i, p in enumerate(item.get("parameters", [])):
        m.msg(9, _parameter(p, f"{where}.parameters[{i}]"))
    return m


def encode_v2_document(doc: dict) -> bytes:
    """gnostic openapi.v2.Document bytes for a Swagger 2.0 document (as build_v2 makes it)."""
    m = Msg().string(1, doc["swagger"])
    info = doc.get("info", {})
    m.msg(2, Msg().string(1, info.get("title", "")).string(2, info.get("version", "")))
    paths = Msg()
    for p in sorted(doc.get("paths", {})):
        paths.msg(2, Msg().string(1, p).msg(2, _path_item(doc["paths"][p], f"paths.{p}")))
    m.msg(8, paths)
    defs = Msg()
    for name in sorted(doc.get("definitions", {})):
        defs.msg(1, Msg().string(1, name).msg(2, schema(doc["definitions"][name], f"definitions.{name}")))
    m.msg(9, defs)
    return bytes(m.buf)
