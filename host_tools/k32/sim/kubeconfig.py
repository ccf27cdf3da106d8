"""Merge the simulator's context into a kubeconfig without touching anything else in it."""
from __future__ import annotations

import base64
import os
import tempfile
from pathlib import Path

import yaml

CONTEXT = "kube32"


class KubeconfigError(RuntimeError):
    pass


def default_path() -> Path:
    """kubectl's rule: the first entry of $KUBECONFIG, else ~/.kube/config."""
    env = os.environ.get("KUBECONFIG", "")
    for entry in env.split(os.pathsep):
        if entry:
            return Path(entry).expanduser()
    return Path.home() / ".kube" / "config"


def load(path: Path) -> dict:
    if not path.exists() or path.stat().st_size == 0:
        return {}
    try:
        doc = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise KubeconfigError(f"{path}: not valid YAML ({str(e).splitlines()[0]})")
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise KubeconfigError(f"{path}: top level must be a mapping, got {type(doc).__name__}")
    for key in ("clusters", "users", "contexts"):
        if doc.get(key) is not None and not isinstance(doc[key], list):
            raise KubeconfigError(f"{path}: field '{key}' must be a list")
    return doc


def _upsert(entries: list, name: str, key: str, value: dict) -> None:
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name") == name:
            entry[key] = value
            return
    entries.append({"name": name, key: value})


def merge(doc: dict, server: str, token: str | None, name: str = CONTEXT,
          ca_pem: str | None = None) -> dict:
    """Set cluster/user/context `name`; current-context only if there is none yet."""
    doc.setdefault("apiVersion", "v1")
    doc.setdefault("kind", "Config")
    doc.setdefault("preferences", {})
    for key in ("clusters", "users", "contexts"):
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


def write_context(server: str, token: str | None = None, path: Path | None = None,
                  name: str = CONTEXT, ca_pem: str | None = None) -> Path:
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
