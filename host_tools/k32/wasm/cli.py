"""`k32 wasm …`: the interpreter's spec-test runner and module runner."""

import subprocess
import sys
import tempfile
from pathlib import Path

import click

from .tool import ToolError, wasm_tool


@click.group()
def wasm():
    """Run WebAssembly modules and conformance tests with the Kube32 interpreter."""


def _tool() -> Path:
    try:
        return wasm_tool()
    except ToolError as e:
        raise click.ClickException(str(e))


@wasm.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-v", "--verbose", is_flag=True, help="Print every failing command.")
@click.option(
    "--tool",
    "tool_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Program to run as `PROGRAM serve` instead of the host build's k32-wasm "
    "(build/mcu/k32-wasm-qemu runs the Cortex-M4 build under qemu).",
)
def spectest(files, verbose, tool_path):
    """Run wast2json output (FILE.json, or FILE.wast converted on the fly) against the
    interpreter with the standard spectest host module."""
    from .spectest import SpecError, run_file, wast_to_json

    tool = tool_path or _tool()
    total_pass = total_fail = 0
    with tempfile.TemporaryDirectory(prefix="k32-spec-") as tmp:
        for f in files:
            try:
                path = wast_to_json(f, Path(tmp)) if f.suffix == ".wast" else f
            except SpecError as e:
                click.echo(f"{f}: {e}")
                total_fail += 1
                continue
            r = run_file(path, tool)
            total_pass += r.passed
            total_fail += r.failed
            skipped = f", {r.skipped} skipped" if r.skipped else ""
            click.echo(f"{f}: {r.passed} passed, {r.failed} failed{skipped}")
            if verbose:
                for line in r.failures:
                    click.echo(f"  {line}")
    click.echo(f"{total_pass} passed, {total_fail} failed")
    sys.exit(1 if total_fail else 0)


@wasm.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("module", type=click.Path(exists=True, dir_okay=False))
@click.option("--invoke", metavar="NAME", help="Call this export instead of the WASI _start.")
@click.option("--fuel", type=int, help="Stop after this many loop iterations and calls.")
@click.option("--max-pages", type=click.IntRange(0, 65536), help="Linear memory cap in 64 KiB pages.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(module, invoke, fuel, max_pages, args):
    """Run MODULE: its WASI _start (program ARGS after --), or --invoke NAME ARGS…"""
    cmd = [str(_tool()), "run"]
    if invoke:
        cmd += ["--invoke", invoke]
    if fuel is not None:
        cmd += ["--fuel", str(fuel)]
    if max_pages is not None:
        cmd += ["--max-pages", str(max_pages)]
    cmd.append(module)
    # click consumed a literal `--`: without --invoke the rest are the program's argv
    cmd += list(args) if invoke else ["--", *args]
    sys.exit(subprocess.run(cmd).returncode)


@wasm.command()
@click.option("--seconds", type=click.IntRange(1, 86400), default=60, show_default=True, help="How long to fuzz.")
@click.pass_context
def fuzz(ctx, seconds):
    """Fuzz load+validate+instantiate+run under ASan+UBSan (same as `k32 fuzz wasm`)."""
    from k32.fuzz.cli import fuzz as fuzz_all

    ctx.invoke(fuzz_all, targets=("wasm",), seconds=seconds)
