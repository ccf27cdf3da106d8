"""Strict YAML in, deterministic YAML out.

In: duplicate mapping keys are an error (PyYAML silently keeps the last one, which would let
a typo'd second `storage:` erase the first). Out: block style, insertion order, no line
wrapping, so the same dict always serialises to the same bytes."""

import yaml

from .errors import RenderError

try:  # the C loader is an optimisation only; both produce the same objects
    _BaseLoader = yaml.CSafeLoader
    _BaseDumper = yaml.CSafeDumper
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader
    _BaseDumper = yaml.SafeDumper


class _StrictLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r} (line {mark.line + 1})", mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_strict(text: str, origin: str):
    """Parse one YAML document; `origin` names the file in the error."""
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        raise RenderError("malformed_yaml", f"{origin}: {_one_line(exc)}") from None


def load_all(text: str, origin: str) -> list:
    """Parse every document (empty documents dropped)."""
    try:
        return [d for d in yaml.load_all(text, Loader=_StrictLoader) if d is not None]
    except yaml.YAMLError as exc:
        raise RenderError("malformed_yaml", f"{origin}: {_one_line(exc)}") from None


def dump(obj) -> bytes:
    return yaml.dump(
        obj,
        Dumper=_BaseDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=False,
        width=1 << 30,
        explicit_start=False,
    ).encode("ascii")


def _one_line(exc) -> str:
    return " ".join(str(exc).split())
