"""`k32 abi …`: generate the pod ABI outputs and check the committed ones are current."""

from pathlib import Path

import click

from k32 import REPO_ROOT

from . import gen
from .model import ABI_FILE, AbiError, load


def _load(abi_file):
    try:
        return load(abi_file)
    except AbiError as e:
        raise click.ClickException(str(e))


@click.group()
def abi():
    """The pod ABI (wasm_abi/k32_abi.yaml) and its generated files."""


@abi.command("gen")
@click.option("--abi-file", type=click.Path(dir_okay=False, path_type=Path), default=ABI_FILE)
def gen_cmd(abi_file):
    """Write the committed outputs (C header, docs page)."""
    model = _load(abi_file)
    for rel, emit in gen.COMMITTED.items():
        path = REPO_ROOT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(emit(model))
        click.echo(f"wrote {rel}")


@abi.command("table")
@click.option("--abi-file", type=click.Path(dir_okay=False, path_type=Path), default=ABI_FILE)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), required=True)
def table_cmd(abi_file, out_dir):
    """Write the firmware host-function table (k32_abi_table.h/.cpp) into OUT_DIR."""
    model = _load(abi_file)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("k32_abi_table.h", gen.table_header(model)), ("k32_abi_table.cpp", gen.table_source(model))):
        p = out_dir / name
        if not p.exists() or p.read_text() != text:  # unchanged files keep their mtime
            p.write_text(text)


@abi.command("check")
@click.option("--abi-file", type=click.Path(dir_okay=False, path_type=Path), default=ABI_FILE)
def check_cmd(abi_file):
    """Fail when a committed generated file differs from what the ABI file generates."""
    model = _load(abi_file)
    stale = []
    for rel, emit in gen.COMMITTED.items():
        path = REPO_ROOT / rel
        if not path.exists() or path.read_text() != emit(model):
            stale.append(rel)
    if stale:
        raise click.ClickException("stale generated ABI files (run `k32 abi gen`): " + ", ".join(stale))
    click.echo("ABI outputs are current")
