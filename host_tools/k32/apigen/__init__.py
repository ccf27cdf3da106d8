"""The API schema generator: the OpenAPI documents the Kube32 API server serves and the
C++ schema table its patch engines and field validation use, all derived from the
upstream Kubernetes schemas (package `kubernetes-validate`) and the tables in kinds.py.

Public entry points: build_documents() (documents.py), document_file() and write_documents()
(files.py, used by the data bundle), and `python -m k32.apigen` (used by the firmware build)."""

from .documents import Document, build_documents
from .files import document_file, write_documents

__all__ = ["Document", "build_documents", "document_file", "write_documents"]
