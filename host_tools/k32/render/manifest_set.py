"""A rendered manifest set: per-resource YAML files plus an index (bundle.json), content-hashed.

Both renderers (catalog, release) produce a `ManifestSet`; `k32 apply` consumes one. A
resource's sha256 covers exactly its bytes; the set's digest is derived from those hashes in
order, never from a second serialisation, so there is one canonical form of a set. (The index
file name, the "k32-bundle/v1" format tag and the error codes keep their first names so sets
rendered before stay readable.)

On disk:
    OUT/bundle.json        {"format", "digest", "source", "resources": [{path, sha256,
                            apiVersion, kind, namespace, name}, ...]}
    OUT/<path>             the exact bytes that were hashed, one Kubernetes object each
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from . import yamlio
from .errors import RenderError

FORMAT = "k32-bundle/v1"
MANIFEST = "bundle.json"


@dataclass(frozen=True)
class Identity:
    """(apiVersion, kind, namespace, name) as read back from the rendered bytes."""

    api_version: str
    kind: str
    namespace: str
    name: str

    def __str__(self):
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.api_version} {self.kind} {where}{self.name}"

    def key(self):
        # Two versions of one group name the same object: compare by group, not version.
        group = self.api_version.rsplit("/", 1)[0] if "/" in self.api_version else ""
        return (group, self.kind, self.namespace, self.name)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_identity(data: bytes, origin: str) -> Identity:
    """Read the object's coordinates out of its bytes; exactly one object per resource."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RenderError("invalid_resource", f"{origin}: not UTF-8") from None
    docs = yamlio.load_all(text, origin)
    if len(docs) != 1:
        raise RenderError(
            "resource_count", f"{origin}: renders {len(docs)} Kubernetes objects, exactly one is required"
        )
    obj = docs[0]
    if not isinstance(obj, dict):
        raise RenderError("invalid_resource", f"{origin}: the rendered document is not a mapping")
    meta = obj.get("metadata")
    for field, value in (
        ("apiVersion", obj.get("apiVersion")),
        ("kind", obj.get("kind")),
        ("metadata.name", meta.get("name") if isinstance(meta, dict) else None),
    ):
        if not isinstance(value, str) or not value:
            raise RenderError("invalid_resource", f"{origin}: {field}: required non-empty string")
    ns = meta.get("namespace", "")
    if ns is None:
        ns = ""
    if not isinstance(ns, str):
        raise RenderError("invalid_resource", f"{origin}: metadata.namespace: must be a string")
    return Identity(obj["apiVersion"], obj["kind"], ns, meta["name"])


def _check_path(path: str) -> str:
    p = PurePosixPath(path)
    if not path or p.is_absolute() or ".." in p.parts or path == MANIFEST or not path.endswith(".yaml") or "\\" in path:
        raise RenderError("invalid_path", f"{path!r}: a resource path must be a relative *.yaml path")
    return str(p)


class Resource:
    """Rendered bytes, their hash and their identity, fixed together at construction.
    The bytes are copied in, and `bytes` objects are immutable, so nothing a caller does
    afterwards can change what the recorded hash covers."""

    __slots__ = ("_path", "_data", "_sha256", "_identity")

    def __init__(self, path: str, data: bytes | bytearray | memoryview):
        self._path = _check_path(path)
        self._data = bytes(data)
        self._sha256 = sha256_hex(self._data)
        self._identity = read_identity(self._data, path)

    path = property(lambda self: self._path)
    sha256 = property(lambda self: self._sha256)
    identity = property(lambda self: self._identity)

    @property
    def data(self) -> bytes:
        return bytes(self._data)

    def entry(self) -> dict:
        i = self._identity
        return {
            "path": self._path,
            "sha256": self._sha256,
            "apiVersion": i.api_version,
            "kind": i.kind,
            "namespace": i.namespace,
            "name": i.name,
        }


def set_digest(hashes) -> str:
    h = hashlib.sha256(FORMAT.encode() + b"\n")
    for x in hashes:
        h.update(x.encode() + b"\n")
    return "sha256:" + h.hexdigest()


class ManifestSet:
    def __init__(self, resources, source: dict | None = None):
        self._resources = tuple(resources)
        self._source = json.loads(json.dumps(source or {}, sort_keys=True))
        paths, ids = {}, {}
        for r in self._resources:
            if r.path in paths:
                raise RenderError("duplicate_path", f"{r.path}: two resources write the same file")
            paths[r.path] = r
            other = ids.get(r.identity.key())
            if other is not None:
                raise RenderError("duplicate_object", f"{other.path} and {r.path} both render {r.identity}")
            ids[r.identity.key()] = r
        self._digest = set_digest(r.sha256 for r in self._resources)

    resources = property(lambda self: self._resources)
    digest = property(lambda self: self._digest)
    source = property(lambda self: json.loads(json.dumps(self._source)))

    def manifest(self) -> dict:
        return {
            "format": FORMAT,
            "digest": self._digest,
            "source": self._source,
            "resources": [r.entry() for r in self._resources],
        }

    def manifest_bytes(self) -> bytes:
        return (json.dumps(self.manifest(), indent=2, sort_keys=False) + "\n").encode()

    def files(self) -> dict[str, bytes]:
        out = {r.path: r.data for r in self._resources}
        out[MANIFEST] = self.manifest_bytes()
        return out


def write(manifests: ManifestSet, out_dir) -> Path:
    """Write to a temporary sibling directory, then rename into place: on any error nothing
    at `out_dir` has changed. Only an existing manifest-set (or empty) directory is replaced."""
    out = Path(out_dir).resolve()
    if out.exists():
        if not out.is_dir():
            raise RenderError("output_exists", f"{out}: exists and is not a directory")
        if any(out.iterdir()) and not (out / MANIFEST).is_file():
            raise RenderError(
                "output_exists", f"{out}: not empty and not a manifest set (no {MANIFEST}); refusing to replace it"
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        for rel, data in manifests.files().items():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rmdir(old)
            os.rename(out, old)
        try:
            os.rename(tmp, out)
        except BaseException:
            if old is not None:
                os.rename(old, out)  # put the previous set back
            raise
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def load(manifests_dir) -> ManifestSet:
    """Read a manifest set back, re-verifying every hash and the digest against bundle.json."""
    root = Path(manifests_dir)
    mpath = root / MANIFEST
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RenderError("not_a_bundle", f"{mpath}: missing") from None
    except (OSError, ValueError) as exc:
        raise RenderError("not_a_bundle", f"{mpath}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise RenderError("not_a_bundle", f"{mpath}: format: must be {FORMAT!r}")
    entries = manifest.get("resources")
    if not isinstance(entries, list):
        raise RenderError("not_a_bundle", f"{mpath}: resources: must be a list")
    resources = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("path"), str):
            raise RenderError("not_a_bundle", f"{mpath}: resources[{i}].path: required string")
        path = _check_path(e["path"])
        try:
            data = (root / path).read_bytes()
        except OSError as exc:
            raise RenderError("not_a_bundle", f"{root / path}: {exc.strerror}") from None
        r = Resource(path, data)
        if r.sha256 != e.get("sha256"):
            raise RenderError("hash_mismatch", f"{root / path}: sha256 {r.sha256} != bundle.json {e.get('sha256')}")
        for key, value in (
            ("apiVersion", r.identity.api_version),
            ("kind", r.identity.kind),
            ("namespace", r.identity.namespace),
            ("name", r.identity.name),
        ):
            if e.get(key) != value:
                raise RenderError(
                    "hash_mismatch", f"{mpath}: resources[{i}].{key}: {e.get(key)!r} but the bytes say {value!r}"
                )
        resources.append(r)
    b = ManifestSet(resources, manifest.get("source") or {})
    if b.digest != manifest.get("digest"):
        raise RenderError("hash_mismatch", f"{mpath}: digest {manifest.get('digest')} != {b.digest}")
    return b


def dir_files(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def diff(expected: dict[str, bytes], out_dir) -> list[str]:
    """Unified-diff lines (on disk -> expected); empty when out_dir holds exactly `expected`."""
    actual = dir_files(Path(out_dir))
    out = []
    for path in sorted(set(expected) | set(actual)):
        want, got = expected.get(path), actual.get(path)
        if want == got:
            continue
        a = (got or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (want or b"").decode("utf-8", "replace").splitlines(keepends=True)
        out += list(
            difflib.unified_diff(
                a,
                b,
                f"{out_dir}/{path}" if got is not None else "/dev/null",
                f"rendered/{path}" if want is not None else "/dev/null",
            )
        )
        if not out or not out[-1].endswith("\n"):
            out.append("\n")
    return out
