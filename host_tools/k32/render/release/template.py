"""Load a Release Template directory: every regular file read once (CRLF -> LF), a content
digest over all of them, resource templates parsed up front and ordered by path."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..errors import RenderError
from .gotemplate import Template as GoTemplate

RESOURCE_SUFFIX = ".yaml.tmpl"  # every such file renders exactly one Kubernetes object
METADATA_FILE = "TEMPLATE"  # optional "key: value" lines; keys: name, version
METADATA_KEYS = ("name", "version")
_META_LINE = re.compile(r"^([a-z]+):\s*([A-Za-z0-9._+-]+)\s*$")


def normalise(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def content_digest(files: dict[str, bytes]) -> str:
    """Over every file: path and length framed, so no two trees share a digest by
    concatenation. Paths sorted, bytes already LF-normalised."""
    h = hashlib.sha256(b"k32-release-template/v1\n")
    for path in sorted(files):
        data = files[path]
        h.update(f"{path}\0{len(data)}\0".encode())
        h.update(data)
    return "sha256:" + h.hexdigest()


class Template:
    """An immutable loaded Release Template. `Template()` is the zero template, which
    every consumer rejects (`zero_template`)."""

    def __init__(self, _files: dict[str, bytes] | None = None, _origin: str = ""):
        self._loaded = _files is not None
        self._files = dict(_files or {})
        self._origin = _origin
        self._digest = content_digest(self._files) if self._loaded else ""
        self._meta = self._parse_metadata() if self._loaded else {}
        self._paths = tuple(sorted(p for p in self._files if p.endswith(RESOURCE_SUFFIX)))
        if self._loaded and not self._paths:
            raise RenderError("empty_template", f"{_origin}: no resource templates (*{RESOURCE_SUFFIX})")
        self._parsed = {p: GoTemplate(self._text(p), f"{_origin}/{p}") for p in self._paths}

    def _text(self, path):
        try:
            return self._files[path].decode("utf-8")
        except UnicodeDecodeError:
            raise RenderError("template_syntax", f"{self._origin}/{path}: not UTF-8") from None

    def _parse_metadata(self):
        meta = {}
        if METADATA_FILE not in self._files:
            return meta
        for n, line in enumerate(self._text(METADATA_FILE).splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = _META_LINE.match(line.strip())
            if not m or m.group(1) not in METADATA_KEYS:
                raise RenderError(
                    "template_metadata",
                    f"{self._origin}/{METADATA_FILE}:{n}: expected 'name: …' or 'version: …', got {line.strip()!r}",
                )
            meta[m.group(1)] = m.group(2)
        return meta

    def is_zero(self) -> bool:
        return not self._loaded

    def require_loaded(self):
        if not self._loaded:
            raise RenderError("zero_template", "the Release Template was never loaded")

    def identity(self) -> dict:
        self.require_loaded()
        return {"name": self._meta.get("name", ""), "version": self._meta.get("version", ""), "digest": self._digest}

    def resource_paths(self) -> tuple[str, ...]:
        return self._paths

    def parsed(self, path) -> GoTemplate:
        return self._parsed[path]


def load_dir(directory) -> Template:
    root = Path(directory)
    if not root.is_dir():
        raise RenderError("no_template", f"{root}: not a directory")
    files = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            raise RenderError("template_file", f"{root}/{rel}: symlinks are not allowed in a template")
        if p.is_file():
            files[rel] = normalise(p.read_bytes())
    return Template(files, str(root))
