"""Artifact producers for `k32 bundle`. Each producer returns the Artifacts it can make
from what exists in the repository; nothing is made up when its inputs are absent."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from k32 import REPO_ROOT

# Text is LF-normalised so a checkout with CRLF line endings yields the same bytes.
TEXT_SUFFIXES = {
    ".html",
    ".htm",
    ".css",
    ".js",
    ".mjs",
    ".json",
    ".txt",
    ".svg",
    ".md",
    ".yaml",
    ".yml",
    ".xml",
    ".csv",
    ".pem",
    ".map",
    ".webmanifest",
}
CA_SOURCES = ("certifi", Path("/etc/ssl/certs/ca-certificates.crt"))
PEM_RE = re.compile(rb"-----BEGIN CERTIFICATE-----\r?\n(.*?)-----END CERTIFICATE-----", re.S)


class BundleError(RuntimeError):
    """An input of the bundle is unusable; the message names it."""


@dataclass(frozen=True)
class Artifact:
    name: str  # relative path in the bundle (and in the data partition)
    data: bytes
    kind: str  # openapi | ca-bundle | pod-image | web | partition-table | data-image
    on_data_partition: bool = True

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def normalise(path: Path, data: bytes) -> bytes:
    if path.suffix.lower() in TEXT_SUFFIXES:
        return data.replace(b"\r\n", b"\n")
    return data


def openapi_documents(board) -> list[Artifact]:
    try:
        from k32.apigen import build_documents, document_file
    except ImportError:
        return []
    docs, _ = build_documents()
    return [Artifact(document_file(d), d.data, "openapi") for d in docs]


def _ca_source() -> tuple[str, bytes]:
    try:
        import certifi

        path = Path(certifi.where())
    except ImportError:
        path = CA_SOURCES[1]
    try:
        return str(path), path.read_bytes()
    except OSError as e:
        raise BundleError(f"CA bundle: cannot read {path}: {e.strerror}") from None


def ca_bundle(board) -> list[Artifact]:
    """Mozilla's roots as PEM, deduplicated and sorted by the DER bytes' sha256.
    certifi is preferred over the system file: it is pinned by version, so every machine
    with the same dependencies gets the same roots."""
    src, raw = _ca_source()
    ders = set()
    for body in PEM_RE.findall(raw):
        try:
            ders.add(base64.b64decode(b"".join(body.split()), validate=True))
        except ValueError:
            raise BundleError(f"CA bundle: {src}: a certificate is not valid base64") from None
    if not ders:
        raise BundleError(f"CA bundle: {src}: no certificates found")
    out = []
    for der in sorted(ders, key=lambda d: hashlib.sha256(d).digest()):
        b64 = base64.b64encode(der).decode("ascii")
        lines = [b64[i : i + 64] for i in range(0, len(b64), 64)]
        out.append("-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n")
    return [Artifact("ca/roots.pem", "".join(out).encode("ascii"), "ca-bundle")]


def _files_under(root: Path):
    return sorted(
        (p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.relative_to(root).as_posix(),
    )


def web_bundles(board, images_dir: Path | None = None) -> list[Artifact]:
    web = (images_dir or REPO_ROOT / "images") / "web"
    if not web.is_dir():
        return []
    return [
        Artifact(f"web/{p.relative_to(web).as_posix()}", normalise(p, p.read_bytes()), "web") for p in _files_under(web)
    ]


def pod_images(board, images_dir: Path | None = None) -> list[Artifact]:
    """Compiled pod images: images/<pod>/**.wasm (web/ holds static bundles, not pods)."""
    root = images_dir or REPO_ROOT / "images"
    if not root.is_dir():
        return []
    out = []
    for pod in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "web"):
        for f in _files_under(pod):
            if f.suffix == ".wasm":
                data = f.read_bytes()
                if data[:4] != b"\0asm":
                    raise BundleError(f"pod image {f}: not a WebAssembly module (bad magic)")
                out.append(Artifact(f"images/{pod.name}/{f.relative_to(pod).as_posix()}", data, "pod-image"))
    return out


# Order does not matter for the output (the manifest is sorted), only for readability.
PRODUCERS = (openapi_documents, ca_bundle, pod_images, web_bundles)
