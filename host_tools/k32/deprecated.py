"""Old command-line spellings that keep working: a renamed option stays accepted under its
old name (hidden from --help) and says on stderr which name replaces it, so scripts written
against the old name run on while their authors update them."""

from __future__ import annotations

import click


def renamed_option(old: str, new: str, **kwargs):
    """A hidden option `old` for what is now `new`; read it back with `pick`."""

    def warn(ctx, param, value):
        if value is not None:
            click.echo(f"warning: {old} is deprecated; use {new}", err=True)
        return value

    return click.option(old, _dest(old), hidden=True, default=None, callback=warn, expose_value=True, **kwargs)


def pick(new_value, kwargs: dict, old: str, new: str, required: bool = False):
    """The value given under the new name or (popped from kwargs) the old one; both is an error."""
    old_value = kwargs.pop(_dest(old), None)
    if new_value is not None and old_value is not None:
        raise click.UsageError(f"give {new} only ({old} is its old name)")
    value = new_value if new_value is not None else old_value
    if required and value is None:
        raise click.UsageError(f"Missing option '{new}'.")
    return value


def _dest(old: str) -> str:
    return "deprecated_" + old.lstrip("-").replace("-", "_")
