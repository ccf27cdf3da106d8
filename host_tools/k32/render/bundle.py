"""Old name of k32.render.manifest_set, kept so imports written before the rename still work."""
from .manifest_set import (  # noqa: F401
    FORMAT,
    MANIFEST,
    Bundle,
    Identity,
    ManifestSet,
    Resource,
    bundle_digest,
    diff,
    dir_files,
    load,
    read_identity,
    sha256_hex,
    write,
)
