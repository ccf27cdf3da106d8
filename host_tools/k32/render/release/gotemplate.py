"""A Go text/template subset with no functions, no clock and no environment.

Supported (what SafeLane Release Templates use): {{ .Field }}, {{ .A.B }}, {{ . }}, {{ $ }},
{{ $.Field }}, variables bound by range ({{ range $i, $w := .Steps }}, {{ $w }}),
{{ if }}/{{ else if }}/{{ else }}/{{ end }}, {{ range }}…{{ else }}…{{ end }},
{{ with }}…{{ else }}…{{ end }}, {{/* comments */}}, and the {{- / -}} trim markers.

Everything else -- any identifier that is not a keyword (now, env, printf, …), a pipe `|`,
parentheses, literals, assignment outside range -- is refused at parse time with
`template_function_forbidden` or `template_syntax`, so a template cannot reach for a value
that is not in the fixed record it is executed with. Every printed value goes through the
caller's `check_value` (the strict character set) before it reaches the output."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ..errors import RenderError

_VAR = r"\$[A-Za-z0-9_]*"
_OPERAND = re.compile(rf"^(?:\.|(?:{_VAR})?(?:\.[A-Za-z_][A-Za-z0-9_]*)+|{_VAR})$")
_RANGE_DECL = re.compile(rf"^({_VAR})\s*(?:,\s*({_VAR})\s*)?:=\s*(.+)$")


@dataclass
class _Text:
    text: str


@dataclass
class _Print:
    operand: str
    line: int


@dataclass
class _Block:
    kind: str  # if | range | with
    operand: str
    line: int
    body: list
    orelse: list
    vars: tuple = ()


class Template:
    def __init__(self, source: str, name: str):
        self.name = name
        self._nodes = _Parser(source, name).parse()

    def execute(self, data, check_value) -> str:
        out: list[str] = []
        _exec(self._nodes, data, {"$": data}, out, self.name, check_value)
        return "".join(out)


def _lex(src: str, name: str):
    """Yield ("text", str) / ("action", str, line) with trim markers applied."""
    pos, items = 0, []
    while True:
        i = src.find("{{", pos)
        if i < 0:
            items.append(["text", src[pos:]])
            break
        items.append(["text", src[pos:i]])
        line = src.count("\n", 0, i) + 1
        j = src.find("}}", i + 2)
        if j < 0:
            raise RenderError("template_syntax", f"{name}:{line}: unclosed action")
        inner = src[i + 2 : j]
        if inner.startswith("/*") and not inner.endswith("*/"):
            k = src.find("*/}}", i)
            if k < 0:
                raise RenderError("template_syntax", f"{name}:{line}: unclosed comment")
            j, inner = k + 2, src[i + 2 : k + 2]
        ltrim = inner[:2] in ("- ", "-\t", "-\n") or inner == "-"
        rtrim = inner[-2:] in (" -", "\t-", "\n-")
        if ltrim:
            inner = inner[1:]
            items[-1][1] = items[-1][1].rstrip(" \t\r\n")
        if rtrim:
            inner = inner[:-1]
        items.append(["action", inner.strip(), line, rtrim])
        pos = j + 2
        if rtrim:
            while pos < len(src) and src[pos] in " \t\r\n":
                pos += 1
    return items


class _Parser:
    def __init__(self, src, name):
        self.items = _lex(src, name)
        self.pos = 0
        self.name = name

    def fail(self, line, msg, code="template_syntax"):
        raise RenderError(code, f"{self.name}:{line}: {msg}")

    def operand(self, text, line):
        text = text.strip()
        if _OPERAND.match(text):
            return text
        word = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
        if word:
            self.fail(
                line,
                f"{word.group(0)!r}: templates have no functions (only .Field, $var, if/range/with/else/end)",
                "template_function_forbidden",
            )
        if "|" in text or "(" in text:
            self.fail(line, f"{text!r}: pipelines and calls are not available", "template_function_forbidden")
        self.fail(line, f"{text!r}: only field access (.Field, $var.Field) is allowed")

    def parse(self, closers=(), opened=None):
        nodes = []
        while self.pos < len(self.items):
            item = self.items[self.pos]
            self.pos += 1
            if item[0] == "text":
                if item[1]:
                    nodes.append(_Text(item[1]))
                continue
            _, text, line, _ = item
            if text.startswith("/*"):
                continue
            word, rest = (text.split(None, 1) + ["", ""])[:2]
            if word in ("end", "else"):
                if word not in closers and not closers:
                    self.fail(line, f"unexpected {{{{{word}}}}}")
                self.pos -= 1
                return nodes
            if word in ("if", "with", "range"):
                nodes.append(self.block(word, rest.strip(), line))
            elif word in ("define", "template", "block", "break", "continue", "nil"):
                self.fail(line, f"{{{{{word}}}}} is not supported", "template_function_forbidden")
            else:
                nodes.append(_Print(self.operand(text, line), line))
        if closers:
            kind, line = opened
            self.fail(line, f"{{{{{kind}}}}} has no matching {{{{end}}}}")
        return nodes

    def block(self, kind, rest, line):
        if not rest:
            self.fail(line, f"{{{{{kind}}}}} needs an operand")
        variables = ()
        if kind == "range":
            m = _RANGE_DECL.match(rest)
            if m:
                variables = tuple(v for v in (m.group(1), m.group(2)) if v)
                rest = m.group(3)
        operand = self.operand(rest, line)
        body = self.parse(closers=("end", "else"), opened=(kind, line))
        orelse = []
        _, text, eline, _ = self.items[self.pos]
        self.pos += 1
        if text.startswith("else"):
            tail = text[4:].strip()
            if tail:
                if kind != "if" or not tail.startswith("if "):
                    self.fail(eline, f"{{{{else {tail}}}}} is only supported as else if")
                # {{else if X}} … {{end}} shares the outer {{end}}
                orelse = [self.block("if", tail[3:].strip(), eline)]
                return _Block(kind, operand, line, body, orelse, variables)
            orelse = self.parse(closers=("end",), opened=(kind, line))
            _, text, eline, _ = self.items[self.pos]
            self.pos += 1
            if text != "end":
                self.fail(eline, "expected {{end}}")
        return _Block(kind, operand, line, body, orelse, variables)


def _resolve(operand: str, dot, scope: dict, name: str, line: int):
    if operand == ".":
        return dot
    if operand.startswith("$"):
        head, _, tail = operand.partition(".")
        if head not in scope:
            raise RenderError("template_syntax", f"{name}:{line}: undefined variable {head}")
        value, fields = scope[head], [f for f in tail.split(".") if f]
    else:
        value, fields = dot, [f for f in operand.split(".") if f]
    for f in fields:
        if dataclasses.is_dataclass(value) and f in {x.name for x in dataclasses.fields(value)}:
            value = getattr(value, f)
        else:
            raise RenderError(
                "template_field_unknown", f"{name}:{line}: {operand}: no field {f!r} in the template data"
            )
    return value


def _truthy(v) -> bool:
    return not (v is None or v is False or v == 0 or v == "" or (isinstance(v, (tuple, list, dict)) and not v))


def _print(v, name, line, operand):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return str(v)
    raise RenderError("template_syntax", f"{name}:{line}: {operand}: a {type(v).__name__} cannot be printed")


def _exec(nodes, dot, scope, out, name, check_value):
    for n in nodes:
        if isinstance(n, _Text):
            out.append(n.text)
        elif isinstance(n, _Print):
            text = _print(_resolve(n.operand, dot, scope, name, n.line), name, n.line, n.operand)
            check_value(text, f"{name}:{n.line}: {n.operand}")
            out.append(text)
        else:
            v = _resolve(n.operand, dot, scope, name, n.line)
            if n.kind == "if":
                _exec(n.body if _truthy(v) else n.orelse, dot, scope, out, name, check_value)
            elif n.kind == "with":
                if _truthy(v):
                    _exec(n.body, v, scope, out, name, check_value)
                else:
                    _exec(n.orelse, dot, scope, out, name, check_value)
            else:
                if not isinstance(v, (tuple, list)):
                    if not _truthy(v):
                        _exec(n.orelse, dot, scope, out, name, check_value)
                        continue
                    raise RenderError("template_syntax", f"{name}:{n.line}: range over {n.operand}: not a list")
                if not v:
                    _exec(n.orelse, dot, scope, out, name, check_value)
                for i, item in enumerate(v):
                    inner = dict(scope)
                    if len(n.vars) == 1:
                        inner[n.vars[0]] = item
                    elif len(n.vars) == 2:
                        inner[n.vars[0]], inner[n.vars[1]] = i, item
                    _exec(n.body, item, inner, out, name, check_value)
