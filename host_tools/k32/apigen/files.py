"""The served OpenAPI documents as files: their names on disk and writing all of them, for
the data bundle (which puts them on a board's data partition)."""

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
