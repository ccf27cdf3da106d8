"""python -m k32.apigen --cpp-out DIR [--docs-out DIR] [--descriptions]

Writes DIR/k32_openapi_docs.cpp and DIR/k32_schema_table.cpp."""

import argparse
import sys
from pathlib import Path

from . import embed, schema_table, write_documents
from .documents import build_documents
from .proto_fields import ProtoError
from .protobuf import EncodeError
from .schema_table import TableError
from .source import SourceError

DOCS_CPP = "k32_openapi_docs.cpp"
SCHEMA_CPP = "k32_schema_table.cpp"


def _write(path: Path, text: str):
    # Always rewritten: the build runs us only when a generator source changed, and a
    # fresh mtime keeps make/ninja from re-running us on every build.
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m k32.apigen", description=__doc__.splitlines()[0])
    ap.add_argument("--cpp-out", type=Path, help="directory for the generated C++ sources")
    ap.add_argument("--docs-out", type=Path, help="directory to write the served documents to")
    ap.add_argument("--descriptions", action="store_true", help="keep field descriptions (about 4x larger documents)")
    args = ap.parse_args(argv)
    if not args.cpp_out and not args.docs_out:
        ap.error("nothing to do: give --cpp-out and/or --docs-out")
    try:
        if args.cpp_out:
            docs, defs = build_documents(descriptions=args.descriptions)
            _write(args.cpp_out / DOCS_CPP, embed.emit_cpp(docs))
            _write(args.cpp_out / SCHEMA_CPP, schema_table.emit_cpp(defs))
        if args.docs_out:
            write_documents(args.docs_out, descriptions=args.descriptions)
    except (SourceError, TableError, EncodeError, ProtoError, OSError) as e:
        print(f"k32.apigen: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
