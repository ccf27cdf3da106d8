"""A data bundle's manifest (bundle.json): its names, its one canonical JSON form, and reading
it back with every listed file checked against its size and sha256."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .artifacts import BundleError

MANIFEST = "bundle.json"
PARTITION_TABLE = "partition-table.bin"
DATA_IMAGE = "data.littlefs.bin"
FORMAT = 1


def canonical(obj) -> bytes:
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def load_manifest(bundle_dir: Path) -> dict:
    """Reads and checks bundle.json: every listed file exists with its size and sha256."""
    path = Path(bundle_dir) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise BundleError(f"{path}: not a readable bundle manifest ({e})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("artifacts"), list):
        raise BundleError(f"{path}: artifacts: missing")
    for i, e in enumerate(manifest["artifacts"]):
        try:
            data = (Path(bundle_dir) / e["name"]).read_bytes()
        except (OSError, KeyError, TypeError):
            raise BundleError(f"{path}: artifacts[{i}]: file missing") from None
        if hashlib.sha256(data).hexdigest() != e.get("sha256"):
            raise BundleError(f"{path}: artifacts[{i}] ({e['name']}): sha256 mismatch; rebuild the bundle")
    return manifest
