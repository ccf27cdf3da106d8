"""The API schema generator: the OpenAPI documents the Kube32 API server serves and the
C++ schema table its patch engines and field validation use, all derived from the
upstream Kubernetes schemas (package `kubernetes-validate`) and the tables in kinds.py.

Public entry points: build_documents() and write_documents() (used by the bundle tool),
and `python -m k32.apigen` (used by the firmware build)."""
from pathlib import Path

from .documents import CT_V2_PROTOBUF, Document, build_documents


def document_file(doc: Document) -> str:
    """Relative file name of a served document: "/openapi/v3/api/v1" -> "openapi/v3/api/v1.json"."""
    ext = ".pb" if doc.content_type == CT_V2_PROTOBUF else ".json"
    return doc.path.lstrip("/") + ext


def write_documents(out_dir, descriptions: bool = False) -> list[Path]:
    """Writes every served document under out_dir (see document_file) and returns the paths."""
    docs, _ = build_documents(descriptions=descriptions)
    written = []
    for d in docs:
        target = Path(out_dir) / document_file(d)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(d.data)
        written.append(target)
    return written


__all__ = ["Document", "build_documents", "document_file", "write_documents"]
