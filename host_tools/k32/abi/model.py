"""Loads and validates wasm_abi/k32_abi.yaml into plain dataclasses."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from k32 import REPO_ROOT

ABI_FILE = REPO_ROOT / "wasm_abi" / "k32_abi.yaml"

# ABI value types -> wasm signature letter (the interpreter's "ii:i" form).
TYPE_LETTER = {"i32": "i", "u32": "i", "ptr": "i", "cptr": "i", "i64": "I"}
C_TYPE = {"i32": "int32_t", "u32": "uint32_t", "i64": "int64_t"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class AbiError(ValueError):
    """A one-line description of what is wrong in the ABI file."""


@dataclass
class Param:
    name: str
    type: str
    c: str


@dataclass
class Import:
    name: str
    params: list[Param]
    ret: str
    doc: str
    capability: str | None

    @property
    def sig(self) -> str:
        return "".join(TYPE_LETTER[p.type] for p in self.params) + ":" + TYPE_LETTER[self.ret]


@dataclass
class ErrorCode:
    name: str
    value: int
    doc: str


@dataclass
class Export:
    name: str
    sig: str
    doc: str


@dataclass
class Abi:
    version: int
    module: str
    errors: list[ErrorCode] = field(default_factory=list)
    capabilities: list[tuple[str, str]] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    exports: list[Export] = field(default_factory=list)


def _need(d, key, where, kind):
    if not isinstance(d, dict) or key not in d:
        raise AbiError(f"{where}: missing field '{key}'")
    v = d[key]
    if not isinstance(v, kind):
        raise AbiError(f"{where}.{key}: expected {kind.__name__}, got {type(v).__name__}")
    return v


def _ident(v: str, where: str) -> str:
    if not _IDENT.match(v):
        raise AbiError(f"{where}: '{v}' is not a C identifier")
    return v


def parse(doc, src: str = "k32_abi.yaml") -> Abi:
    if not isinstance(doc, dict):
        raise AbiError(f"{src}: top level must be a mapping")
    abi = Abi(version=_need(doc, "version", src, int), module=_need(doc, "import_module", src, str))
    seen_err_names, seen_values = set(), set()
    for i, e in enumerate(_need(doc, "errors", src, list)):
        w = f"{src}: errors[{i}]"
        name = _ident(_need(e, "name", w, str), w + ".name")
        value = _need(e, "value", w, int)
        if value >= 0:
            raise AbiError(f"{w}.value: error codes are negative (got {value})")
        if name in seen_err_names or value in seen_values:
            raise AbiError(f"{w}: duplicate error name or value ({name} = {value})")
        seen_err_names.add(name)
        seen_values.add(value)
        abi.errors.append(ErrorCode(name, value, _need(e, "doc", w, str)))
    caps = set()
    for i, c in enumerate(_need(doc, "capabilities", src, list)):
        w = f"{src}: capabilities[{i}]"
        name = _ident(_need(c, "name", w, str), w + ".name")
        caps.add(name)
        abi.capabilities.append((name, _need(c, "doc", w, str)))
    names = set()
    for i, f in enumerate(_need(doc, "imports", src, list)):
        w = f"{src}: imports[{i}]"
        name = _ident(_need(f, "name", w, str), w + ".name")
        if name in names:
            raise AbiError(f"{w}.name: duplicate import {name}")
        names.add(name)
        params = []
        for j, p in enumerate(_need(f, "params", w, list)):
            pw = f"{w}.params[{j}]"
            ptype = _need(p, "type", pw, str)
            if ptype not in TYPE_LETTER:
                raise AbiError(f"{pw}.type: unknown type '{ptype}' (one of {', '.join(TYPE_LETTER)})")
            c = p.get("c") or C_TYPE.get(ptype)
            if ptype in ("ptr", "cptr") and not p.get("c"):
                raise AbiError(f"{pw}.c: pointer parameters name their C type")
            params.append(Param(_ident(_need(p, "name", pw, str), pw + ".name"), ptype, c))
        ret = f.get("ret", "i32")
        if ret not in ("i32", "i64"):
            raise AbiError(f"{w}.ret: must be i32 or i64 (got {ret!r})")
        cap = f.get("capability")
        if cap is not None and cap not in caps:
            raise AbiError(f"{w}.capability: '{cap}' is not declared under capabilities")
        abi.imports.append(Import(name, params, ret, _need(f, "doc", w, str), cap))
    for i, x in enumerate(_need(doc, "exports", src, list)):
        w = f"{src}: exports[{i}]"
        abi.exports.append(
            Export(_ident(_need(x, "name", w, str), w + ".name"), _need(x, "sig", w, str), _need(x, "doc", w, str))
        )
    return abi


def load(path: Path = ABI_FILE) -> Abi:
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise AbiError(f"{path}: cannot read ({e.strerror})")
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise AbiError(f"{path}: not valid YAML ({str(e).splitlines()[0]})")
    return parse(doc, str(path))
