"""`k32 fuzz [TARGET…] --seconds N`: build and run the libFuzzer targets of firmware/fuzz/."""

import os

import click

from .targets import all_targets


@click.command()
@click.argument("targets", nargs=-1)
@click.option(
    "--seconds", type=click.IntRange(1, 86400), default=60, show_default=True, help="How long each target runs."
)
@click.option(
    "--parallel",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="How many targets run at once (each uses one core).",
)
@click.option("--list", "list_only", is_flag=True, help="Print the targets and exit.")
def fuzz(targets, seconds, parallel, list_only):
    """Fuzz every parser (or only TARGETs) with libFuzzer under ASan+UBSan: builds all targets
    in build/fuzz, runs each for --seconds, prints executions and crashes per target and fails
    when any target crashed, leaked, hung or broke a check (inputs in build/fuzz/artifacts/)."""
    from .runner import FuzzError, run

    known = all_targets()
    if list_only:
        for name, t in known.items():
            click.echo(f"{name}\t{t.source.relative_to(t.source.parents[2])}")
        return
    unknown = [t for t in targets if t not in known]
    if unknown:
        raise click.BadParameter(
            f"unknown target(s) {', '.join(unknown)}; known: {', '.join(known)}", param_hint="TARGET"
        )
    chosen = [known[t] for t in (targets or known)]

    def report(r):
        click.echo(
            f"{r.target:<12} {r.executions:>12,} executions  {r.crashes} crashes  corpus {r.corpus}  ({r.seconds} s)"
        )
        if not r.ok:
            click.echo(r.tail)
            for a in r.artifacts:
                click.echo(f"  reproduce: build/fuzz/{chosen_binary(r.target)} {a}")

    def chosen_binary(name):
        return known[name].binary_name

    try:
        results = run(chosen, seconds, jobs=os.cpu_count() or 1, parallel=parallel, report=report)
    except FuzzError as e:
        raise click.ClickException(str(e))
    bad = [r.target for r in results if not r.ok]
    if bad:
        raise click.ClickException(f"the fuzzer found a problem in: {', '.join(bad)}")
    click.echo(f"fuzz: {len(results)} target(s), {seconds} s each, without a crash, leak, hang or failed check")
