"""`k32 bench size` and `k32 check stacks`: reports over the build/mcu objects; `k32 check
value-stacks`: the shipped images' interpreter value stacks against the boards."""

from __future__ import annotations

import json
from pathlib import Path

import click

from k32 import REPO_ROOT

from .library_frames import LibraryError
from .port_figures import FIGURES
from .size import MCU_BUILD_DIR, SizeError, measure
from .stacks import StackError, check


def _kb(n: int) -> str:
    return f"{n / 1024:.1f} KB"


@click.command("size")
@click.option(
    "--build-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=MCU_BUILD_DIR,
    show_default=True,
    help="The Cortex-M4 build (k32 build firmware --target mcu).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def size(build_dir, as_json):
    """Code and data size per component of the Cortex-M4/newlib objects (-Os), with the
    verdict on the portable firmware's .text (src/ at most 1 MB)."""
    try:
        r = measure(build_dir)
    except SizeError as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(r, indent=2))
    else:
        click.echo(f"{'component':<16}{'.text':>10}{'.rodata':>10}{'.data':>8}{'.bss':>8}")
        for name, c in r["components"].items():
            click.echo(f"{name:<16}{c['text']:>10}{c['rodata']:>10}{c['data']:>8}{c['bss']:>8}")
        t = r["src_total"]
        click.echo(f"{'src total':<16}{t['text']:>10}{t['rodata']:>10}{t['data']:>8}{t['bss']:>8}")
        v = r["verdicts"]
        click.echo(
            f"src .text {_kb(v['src_text']['bytes'])} of {_kb(v['src_text']['limit'])}: "
            f"{'ok' if v['src_text']['ok'] else 'TOO LARGE'}"
        )
        click.echo(
            f"src/wasm .text {_kb(v['wasm_text']['bytes'])} (the interpreter's target: "
            f"{_kb(v['wasm_text']['reference'])}, information)"
        )
        click.echo(
            f"src/wasm dispatch loop (execute) .text {_kb(v['wasm_loop_text']['bytes'])} "
            "(what a board with wasm_loop: iram places in instruction RAM)"
        )
    if not r["verdicts"]["src_text"]["ok"]:
        raise SystemExit(1)


@click.group()
def check_group():
    """Static checks over the firmware builds."""


@check_group.command("stacks")
@click.option("--board", default="s3", show_default=True, help="Board profile whose stack budgets apply.")
@click.option(
    "--build-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=MCU_BUILD_DIR,
    show_default=True,
    help="The Cortex-M4 build (k32 build firmware --target mcu).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--port-figures/--no-port-figures",
    default=True,
    show_default=True,
    help="Add each port function's board figure (firmware/port/esp32/stack_figures.yaml) where a "
    "thread calls it; without, port functions count as zero.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Show the deepest path (library frames marked with their archive) and what is left unbounded.",
)
def stacks(board, build_dir, as_json, port_figures, verbose):
    """Worst-case stack of each thread entry point over the call graph of the Cortex-M4
    objects, against the board's budgets; exits 1 when a thread exceeds its budget or its
    figure is only a lower bound (a call through a pointer or a recursion left unbounded)."""
    try:
        r = check(board, build_dir, port=port_figures)
    except (StackError, LibraryError, ValueError) as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(r, indent=2))
    else:
        click.echo(f"board {r['board']}" + ("" if r["port_figures"] else " (port functions counted as zero)"))
        if verbose:
            click.echo("(a frame marked libc.a, libstdc++.a, … is read from that archive of the link)")
        click.echo(f"{'thread':<17}{'worst':>8}{'budget':>8}  verdict")
        for t in r["threads"]:
            worst = f"{'>=' if t['lower_bound'] else ''}{t['worst_bytes']}"
            budget = t["budget_bytes"] if t["budget_bytes"] is not None else "-"
            extra = f" ({t['unbounded_count']} unbounded calls)" if t["lower_bound"] else ""
            click.echo(f"{t['thread']:<17}{worst:>8}{budget:>8}  {t['verdict']}{extra}")
            if verbose:
                for step in t["deepest_path"]:
                    click.echo(f"    {step}")
                for why in t["unbounded"]:
                    click.echo(f"    unbounded: {why}")
    if not r["ok"]:
        raise SystemExit(1)


@check_group.command("port-stacks")
@click.option(
    "--idf",
    type=click.Path(file_okay=False, path_type=Path),
    help="ESP-IDF checkout [$IDF_PATH] (the same one `k32 build firmware --compile-only` takes).",
)
@click.option(
    "--littlefs",
    type=click.Path(file_okay=False, path_type=Path),
    help="esp_littlefs component checkout, with its littlefs submodule [beside the ESP-IDF checkout].",
)
@click.option(
    "--build-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=REPO_ROOT / "build" / "idf-check-c3",
    show_default=True,
    help="Where ESP-IDF configures the C3 firmware and the objects go.",
)
@click.option("-j", "--jobs", default=2, show_default=True)
def port_stacks(idf, littlefs, build_dir, jobs):
    """Worst-case stack of each ESP32 port function with ESP-IDF below it (lwIP, mbedTLS,
    FreeRTOS, VFS, NVS, LittleFS), compiled for the ESP32-C3 from an ESP-IDF checkout; writes
    firmware/port/esp32/stack_figures.yaml, which `k32 check stacks` adds at each port call."""
    from k32.build.idf_check import CheckError

    from .idf_frames import FramesError, generate

    try:
        table = generate(idf, littlefs, build_dir, jobs=jobs, echo=click.echo)
    except (CheckError, FramesError, StackError, LibraryError) as e:
        raise click.ClickException(str(e))
    fns = table["functions"]
    lower = [s for s, e in fns.items() if e.get("unbounded")]
    click.echo(f"{len(fns)} port functions, {len(lower)} only as lower bounds; written to {FIGURES}")
    for s in lower:
        click.echo(f"  >= {fns[s]['bytes']:>6}  {fns[s]['name']}: {fns[s]['unbounded'][0]}")


@check_group.command("value-stacks")
@click.option("--board", "boards", multiple=True, help="Board profile(s) to check against [every profile].")
@click.option(
    "--wasm",
    "extra",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Check this module too (an image of one's own), besides the shipped images.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def value_stacks(boards, extra, as_json):
    """Worst-case value stack and call depth of every shipped image in the interpreter (the bound
    the firmware computes at load, over each image's call graph), against each board's
    wasm_value_stack and wasm_call_depth; exits 1 when one does not fit or has no bound."""
    import tempfile

    from k32.boards import BoardError
    from k32.images.build import ImageBuildError, build_all
    from k32.images.value_stack import ValueStackError, check
    from k32.wasm.tool import ToolError, wasm_tool

    try:
        tool = wasm_tool()
        with tempfile.TemporaryDirectory(prefix="k32-value-stacks-") as tmp:
            images = {i.name: i.wasm for i in build_all(Path(tmp))}
            images.update({p.stem: p for p in extra})
            r = check(images, tool, list(boards) or None)
    except (BoardError, ImageBuildError, ToolError, ValueStackError) as e:
        raise click.ClickException(str(e))
    if as_json:
        click.echo(json.dumps(r, indent=2))
    else:
        click.echo(f"{'image':<16}{'board':<8}{'bytes':>7}{'budget':>8}{'frames':>8}{'budget':>8}  verdict")
        for row in r["rows"]:
            if row["unbounded"]:
                need, frames = "-", "-"
            else:
                need, frames = row["bytes"], row["frames"]
            verdict = "ok" if row["ok"] else (f"UNBOUNDED: {row['unbounded']}" if row["unbounded"] else "DOES NOT FIT")
            click.echo(
                f"{row['image']:<16}{row['board']:<8}{need:>7}{row['budget_bytes']:>8}{frames:>8}"
                f"{row['budget_frames']:>8}  {verdict}"
            )
    if not r["ok"]:
        raise SystemExit(1)
