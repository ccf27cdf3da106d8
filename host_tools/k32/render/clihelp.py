"""Shared CLI plumbing: a RenderError becomes one line on stderr and exit status 1."""

import functools

import click

from .errors import RenderError


def one_line_errors(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RenderError as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper
