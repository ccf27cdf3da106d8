"""The protobuf field numbers of the served definitions (proto_fields.json, extracted from the
Kubernetes Go struct tags by proto_extract.py), joined with the schema table so the API server
can decode protobuf request bodies of every served kind with the same schema it validates
and merges with."""

import json
from pathlib import Path

_TABLE = Path(__file__).with_name("proto_fields.json")

# Served fields with no protobuf number in the Kubernetes sources the table was extracted
# from; such fields can only arrive in JSON bodies.
NO_NUMBER = {
    ("io.k8s.api.core.v1.NodeSystemInfo", "runningInUserNamespace"),
}
# apiVersion/kind travel in the protobuf envelope (runtime.Unknown's TypeMeta), not the message.
_ENVELOPE = {"apiVersion", "kind"}

# Per-node decoding of values the schema describes as strings but protobuf carries otherwise.
CODEC_PLAIN, CODEC_TIME, CODEC_MICROTIME, CODEC_BYTES = 0, 1, 2, 3
_NAMED_CODECS = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": CODEC_TIME,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": CODEC_MICROTIME,
}


class ProtoError(Exception):
    pass


def load() -> dict:
    try:
        return json.loads(_TABLE.read_text())
    except (OSError, ValueError) as e:
        raise ProtoError(f"{_TABLE}: {e}") from None


def field_entry(table: dict, owner: str, name: str):
    """(number, via, omit_zero) of one schema field; (0, 0, False) when it has none."""
    entry = table.get(owner, {}).get(name)
    if entry is None:
        if name in _ENVELOPE or (owner, name) in NO_NUMBER:
            return 0, 0, False
        raise ProtoError(
            f"{owner}.{name}: no protobuf field number in proto_fields.json "
            "(re-run proto_extract.py on the Kubernetes sources)"
        )
    number, omit_zero, via = entry
    return number, via, bool(omit_zero)


def node_codec(definition, schema) -> int:
    if definition in _NAMED_CODECS:
        return _NAMED_CODECS[definition]
    if schema.get("type") == "string" and schema.get("format") == "byte":
        return CODEC_BYTES
    return CODEC_PLAIN
