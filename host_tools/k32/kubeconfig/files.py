"""Kubeconfig files, read and written by kubectl's rules: which files count ($KUBECONFIG or
~/.kube/config), how several merge (the first file that sets a value wins), and how a context
is merged into a file without touching anything else in it."""

from __future__ import annotations

import base64
import os
import tempfile
from pathlib import Path

import yaml

DEFAULT_CONTEXT = "kube32"
# A kubeconfig with embedded certificates for many clusters stays well under this; a larger
# file is not a kubeconfig, and is refused before it is parsed.
FILE_MAX_BYTES = 4 * 1024 * 1024
LISTS = ("clusters", "users", "contexts")


class KubeconfigError(RuntimeError):
    """A kubeconfig file or context is unusable; the message names the file and the field."""


def default_path() -> Path:
    """kubectl's rule for the file it writes: the first entry of $KUBECONFIG, else ~/.kube/config."""
    return search_paths()[0]


def search_paths(explicit: str | Path | None = None) -> list[Path]:
    """The files kubectl reads: the one given, else every entry of $KUBECONFIG, else ~/.kube/config."""
    if explicit:
        return [Path(explicit).expanduser()]
    entries = [e for e in os.environ.get("KUBECONFIG", "").split(os.pathsep) if e]
    if entries:
        return [Path(e).expanduser() for e in entries]
    return [Path.home() / ".kube" / "config"]


def load(path: Path) -> dict:
    """One kubeconfig file as a mapping ({} when it does not exist or is empty)."""
    path = Path(path)
    try:
        if not path.exists() or path.stat().st_size == 0:
            return {}
        if path.stat().st_size > FILE_MAX_BYTES:
            raise KubeconfigError(f"{path}: larger than {FILE_MAX_BYTES} bytes; not a kubeconfig")
        doc = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise KubeconfigError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    except RecursionError:  # PyYAML builds nested collections by recursion
        raise KubeconfigError(f"{path}: not valid YAML (nested too deeply for a kubeconfig)") from None
    except OSError as e:
        raise KubeconfigError(f"{path}: cannot read ({e.strerror or e})") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise KubeconfigError(f"{path}: top level must be a mapping, got {type(doc).__name__}")
    for key in LISTS:
        if doc.get(key) is not None and not isinstance(doc[key], list):
            raise KubeconfigError(f"{path}: field '{key}' must be a list")
    return doc


def read_merged(paths: list[Path]) -> dict:
    """kubectl's merge of several files: the first file that names a cluster, user or context
    wins, and so does the first current-context. Values are (body, file it came from)."""
    merged = {"clusters": {}, "contexts": {}, "users": {}, "current-context": None}
    for p in paths:
        doc = load(p)
        for key in LISTS:
            for i, item in enumerate(doc.get(key) or []):
                body = item.get(key[:-1]) if isinstance(item, dict) else None
                if (
                    not isinstance(item, dict)
                    or not isinstance(item.get("name"), str)
                    or not isinstance(body or {}, dict)
                ):
                    raise KubeconfigError(f"{p}: {key}[{i}]: needs a name and a {key[:-1]} mapping")
                merged[key].setdefault(item["name"], (body or {}, p))
        current = doc.get("current-context")
        if current is not None and not isinstance(current, str):
            raise KubeconfigError(f"{p}: current-context: must be a string")
        merged["current-context"] = merged["current-context"] or current
    return merged


def _upsert(entries: list, name: str, key: str, value: dict) -> None:
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name") == name:
            entry[key] = value
            return
    entries.append({"name": name, key: value})


def merge(doc: dict, server: str, token: str | None, name: str = DEFAULT_CONTEXT, ca_pem: str | None = None) -> dict:
    """Set cluster/user/context `name`; current-context only if there is none yet."""
    doc.setdefault("apiVersion", "v1")
    doc.setdefault("kind", "Config")
    doc.setdefault("preferences", {})
    for key in LISTS:
        if doc.get(key) is None:
            doc[key] = []
    cluster = {"server": server}
    if server.startswith("https://"):
        if ca_pem:
            cluster["certificate-authority-data"] = base64.b64encode(ca_pem.encode()).decode()
        else:
            cluster["insecure-skip-tls-verify"] = True
    _upsert(doc["clusters"], name, "cluster", cluster)
    _upsert(doc["users"], name, "user", {"token": token} if token else {})
    _upsert(doc["contexts"], name, "context", {"cluster": name, "user": name})
    if not doc.get("current-context"):
        doc["current-context"] = name
    return doc


def write_context(
    server: str,
    token: str | None = None,
    path: Path | None = None,
    name: str = DEFAULT_CONTEXT,
    ca_pem: str | None = None,
) -> Path:
    """Merge context `name` into the kubeconfig at `path` (default: kubectl's) atomically."""
    path = Path(path) if path else default_path()
    doc = merge(load(path), server, token, name, ca_pem)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".kubeconfig.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            yaml.safe_dump(doc, f, default_flow_style=False, sort_keys=False)
        os.chmod(tmp, 0o600)  # it may hold a bearer token
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
