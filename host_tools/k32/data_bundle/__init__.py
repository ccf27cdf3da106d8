"""The data bundle (`k32 bundle`): what Python generates for one board's data partition —
OpenAPI documents, CA roots, pod images, web content — with a partition table and a LittleFS
image of it, all content-hashed into one digest the firmware prints at boot.

artifacts.py makes the content, builder.py assembles and writes the bundle, manifest.py reads
and checks its bundle.json, littlefs_image.py builds the data-partition image."""

from .artifacts import Artifact, BundleError
from .builder import build, default_out, digest_for, digest_of
from .manifest import DATA_IMAGE, FORMAT, MANIFEST, PARTITION_TABLE, canonical, load_manifest

__all__ = [
    "DATA_IMAGE",
    "FORMAT",
    "MANIFEST",
    "PARTITION_TABLE",
    "Artifact",
    "BundleError",
    "build",
    "canonical",
    "default_out",
    "digest_for",
    "digest_of",
    "load_manifest",
]
