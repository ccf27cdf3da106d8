"""`k32 apigen`: write the served OpenAPI documents to a directory (for bundles, inspection)."""

from pathlib import Path

import click


@click.group()
def apigen():
    """The API schema: OpenAPI documents the API server serves."""


@apigen.command("write")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--descriptions", is_flag=True, help="Keep field descriptions (about 4x larger).")
def write(out_dir: Path, descriptions: bool):
    """Write /openapi/v2 (.json and .pb) and /openapi/v3[/<gv>] (.json) under OUT_DIR."""
    from . import write_documents
    from .protobuf import EncodeError
    from .schema_table import TableError
    from .source import SourceError

    try:
        written = write_documents(out_dir, descriptions=descriptions)
    except (SourceError, TableError, EncodeError, OSError) as e:
        raise click.ClickException(str(e))
    for p in written:
        click.echo(f"{p} ({p.stat().st_size} bytes)")
