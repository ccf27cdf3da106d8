"""Extracts the protobuf field numbers of the served kinds from the Kubernetes Go sources
(k8s.io/api and k8s.io/apimachinery checkouts) into proto_fields.json.

Kubernetes assigns protobuf field numbers in Go struct tags (`protobuf:"bytes,3,opt,name=..."`);
the OpenAPI schemas the documents come from do not carry them. The tags are stable (a number is
never reused), so the table is extracted once per Kubernetes upgrade and checked in; the
generator (protobuf_table.py) joins it with the served definitions and fails when a served
field has no number.

Besides the number, each entry records whether Go's JSON encoding omits the field's zero
value (a non-pointer field tagged omitempty). Kubernetes' protobuf encoder writes every
non-pointer scalar, so a decoder must drop such zero values to produce the JSON kubectl
would have sent.

    python -m k32.apigen.proto_extract API_CHECKOUT APIMACHINERY_CHECKOUT > proto_fields.json
"""

import json
import re
import sys
from pathlib import Path

# Go package directory (relative to its checkout) -> OpenAPI definition prefix.
PACKAGES = {
    ("api", "core/v1"): "io.k8s.api.core.v1",
    ("api", "discovery/v1"): "io.k8s.api.discovery.v1",
    ("api", "coordination/v1"): "io.k8s.api.coordination.v1",
    ("api", "networking/v1"): "io.k8s.api.networking.v1",
    ("api", "apps/v1"): "io.k8s.api.apps.v1",
    ("api", "autoscaling/v1"): "io.k8s.api.autoscaling.v1",
    ("apimachinery", "pkg/apis/meta/v1"): "io.k8s.apimachinery.pkg.apis.meta.v1",
    ("apimachinery", "pkg/runtime"): "io.k8s.apimachinery.pkg.runtime",
    ("apimachinery", "pkg/util/intstr"): "io.k8s.apimachinery.pkg.util.intstr",
    ("apimachinery", "pkg/api/resource"): "io.k8s.apimachinery.pkg.api.resource",
}

_STRUCT = re.compile(r"^type (\w+) struct \{")
_FIELD = re.compile(r'^\s+\w+\s+(\S+)\s+`(.*)`')
_EMBEDDED = re.compile(r'^\s+([\w.*]+)\s+`(.*)`')
_TAG = re.compile(r'(\w+):"([^"]*)"')


def structs_of(path: Path):
    """(struct name, [(go type, json tag, protobuf tag)]) for each top-level struct."""
    current, fields = None, []
    for line in path.read_text().splitlines():
        m = _STRUCT.match(line)
        if m:
            current, fields = m.group(1), []
            continue
        if current and line.startswith("}"):
            yield current, fields
            current = None
            continue
        if current:
            f = _FIELD.match(line) or _EMBEDDED.match(line)
            if f:
                tags = dict(_TAG.findall(f.group(2)))
                if "protobuf" in tags and "json" in tags:
                    fields.append((f.group(1), tags["json"], tags["protobuf"]))


def extract(api: Path, apimachinery: Path) -> dict:
    """{definition: {json name: [number, omit_zero, via]}}; via is 0, or the number of the
    inlined message (`json:",inline"`, e.g. Volume's VolumeSource) that carries the field."""
    roots = {"api": api, "apimachinery": apimachinery}
    out, inlined = {}, {}
    for (repo, pkg), prefix in sorted(PACKAGES.items()):
        for go in sorted((roots[repo] / pkg).glob("*.go")):
            if go.name.endswith("_test.go") or go.name.startswith("zz_") or go.name.endswith(".pb.go"):
                continue
            for name, fields in structs_of(go):
                entry = {}
                for go_type, json_tag, pb_tag in fields:
                    json_name, *opts = json_tag.split(",")
                    number = int(pb_tag.split(",")[1])
                    if "inline" in opts or not json_name:  # embedded struct: Go inlines it
                        inlined.setdefault(f"{prefix}.{name}", []).append((number, f"{prefix}.{go_type}"))
                        continue
                    if json_name == "-":
                        continue
                    omit_zero = "omitempty" in opts and not go_type.startswith("*")
                    entry[json_name] = [number, omit_zero, 0]
                if entry:
                    out[f"{prefix}.{name}"] = entry
    for outer, parts in inlined.items():
        for via, inner in parts:
            for json_name, (number, omit_zero, inner_via) in out.get(inner, {}).items():
                if inner_via:
                    raise SystemExit(f"{outer}: {inner} inlines a message itself; not supported")
                out.setdefault(outer, {})[json_name] = [number, omit_zero, via]
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    from .source import served_definitions

    served = served_definitions()
    table = {name: fields for name, fields in extract(Path(argv[0]), Path(argv[1])).items() if name in served}
    # One line per field keeps upgrades reviewable as a diff.
    lines = []
    for name in sorted(table):
        fields = ",\n".join(f'  {json.dumps(f)}: {json.dumps(v)}' for f, v in sorted(table[name].items()))
        lines.append(f' {json.dumps(name)}: {{\n{fields}\n }}')
    sys.stdout.write("{\n" + ",\n".join(lines) + "\n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
