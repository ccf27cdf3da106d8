"""Seed corpora from real inputs: the repository's manifests and test fixtures, the committed
captures under firmware/fuzz/seeds/<target>/ (kubectl's requests as it sent them), and for
Wasm the modules of the conformance tests. Each generator writes files into a corpus dir."""

import hashlib
import json
from pathlib import Path

import yaml

from k32 import REPO_ROOT

from .targets import SEEDS_DIR

EXAMPLES = REPO_ROOT / "examples"
TESTS = REPO_ROOT / "tests"


def _manifest_objects() -> list[dict]:
    """Every object of examples/ and the test fixtures' YAML files."""
    objs = []
    files = sorted(EXAMPLES.rglob("*.yaml")) + sorted(TESTS.rglob("*.yaml"))
    for f in files:
        try:
            docs = list(yaml.safe_load_all(f.read_text()))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        objs += [d for d in docs if isinstance(d, dict)]
    return objs


def _yaml_documents() -> list[bytes]:
    """Each document of the repository's manifests, as text (the parser takes one at a time)."""
    out = []
    for f in sorted(EXAMPLES.rglob("*.yaml")) + sorted(TESTS.rglob("*.yaml")):
        for doc in f.read_text(errors="replace").split("\n---"):
            if doc.strip():
                out.append(doc.encode())
    return out


def _json_seeds() -> list[bytes]:
    return [json.dumps(o).encode() for o in _manifest_objects()] + [
        json.dumps(o, indent=2).encode() for o in _manifest_objects()[:20]
    ]


def _patch_seeds() -> list[bytes]:
    """[doc, patch, kind] triples: each manifest with the kinds of patch kubectl sends for it."""
    out = []
    for o in _manifest_objects()[:60]:
        kind = f"{o.get('apiVersion', 'v1')}/{o.get('kind', '')}"
        labels = {"metadata": {"labels": {"fuzz": "1", "app": None}}}
        out.append([o, labels, kind])
        out.append(
            [
                o,
                [
                    {"op": "add", "path": "/metadata/labels", "value": {"a": "b"}},
                    {"op": "replace", "path": "/metadata/name", "value": "x"},
                    {"op": "test", "path": "/kind", "value": o.get("kind")},
                ],
                kind,
            ]
        )
        spec = o.get("spec") or {}
        containers = spec.get("containers") or (spec.get("template") or {}).get("spec", {}).get("containers")
        if containers:
            c = containers[0]
            out.append(
                [
                    o,
                    {
                        "spec": {
                            "containers": [
                                {"name": c.get("name"), "image": "changed"},
                                {"name": "side", "$patch": "delete"},
                            ],
                            "$setElementOrder/containers": [{"name": c.get("name")}],
                        }
                    },
                    kind,
                ]
            )
            out.append(
                [
                    o,
                    [
                        {"op": "remove", "path": "/spec/containers/0"},
                        {"op": "copy", "from": "/metadata", "path": "/spec/x"},
                        {"op": "move", "from": "/spec/x", "path": "/spec/y"},
                    ],
                    kind,
                ]
            )
    return [json.dumps(s).encode() for s in out]


def _console_seeds() -> list[bytes]:
    lines = [
        "K32_CMD:STATUS",
        'K32_CMD:TOKEN {"token":"s3cret"}',
        'K32_CMD:TOKEN {"token":""}',
        'K32_CMD:WIFI {"ssid":"Kube32-Cluster","password":"pw"}',
        "K32_CMD:REBOOT",
        'K32_CMD:ECHO {"a":[1,2.5,"x\\u00e9",null,true],"b":{"c":{}}}',
        'K32_CMD:FAIL {"why":"no\\nway"}',
        "boot noise\r\nK32_CMD:STATUS\r\n",
    ]
    return [line.encode() for line in lines]


def _http_response_seeds() -> list[bytes]:
    """Answers of servers outside the cluster, each behind the target's two control bytes
    (the piece size the answer arrives in, and whether the request was HEAD)."""
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nServer: old\r\n\r\nthe body ends when the connection does",
        b"HTTP/1.1 204 No Content\r\nDate: Tue, 01 Dec 2026 20:00:00 GMT\r\n\r\n",
        b"HTTP/1.1 302 Found\r\nLocation: https://example.com/\r\nContent-Length: 0\r\n\r\n",
    ]
    return [bytes([piece, head]) + a for a in answers for piece, head in ((255, 0), (0, 0), (16, 1))]


def _sse_seeds() -> list[bytes]:
    """Channel messages as pods publish them: <name length><name><payload>."""
    msgs = [
        ("hello", '{"type":"hello","n":1}'),
        ("tick", '{"t":"tick","n":2}'),
        ("message", "plain bytes\r\nwith\rline\nends"),
        ("presence", '{"viewers":3}'),
        ("x\n\ndata: forged", "{}"),
    ]
    return [bytes([len(n.encode())]) + n.encode() + p.encode() for n, p in msgs]


GENERATORS = {
    "http-response": _http_response_seeds,
    "sse": _sse_seeds,
    "json": _json_seeds,
    "yaml": _yaml_documents,
    "patch": _patch_seeds,
    "console": _console_seeds,
}


def _wasm_seeds() -> list[bytes]:
    from k32.wasm.fuzz import module_seeds

    return module_seeds()


GENERATORS["wasm"] = _wasm_seeds


def write_seeds(target: str, corpus: Path) -> int:
    """Adds the target's seeds to corpus (named by content, so re-runs add nothing twice)."""
    corpus.mkdir(parents=True, exist_ok=True)
    seeds = list(GENERATORS.get(target, list)())
    committed = SEEDS_DIR / target
    if committed.is_dir():
        seeds += [f.read_bytes() for f in sorted(committed.iterdir()) if f.is_file()]
    for s in seeds:
        (corpus / ("seed-" + hashlib.sha1(s).hexdigest())).write_bytes(s)
    return len(seeds)
