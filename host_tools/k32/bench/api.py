"""`k32 bench api`: API server latency and control-plane heap for N ConfigMaps.

Measures, over one keep-alive HTTP connection (what kubectl and client libraries use):
  apply: POST of each new ConfigMap (kubectl apply's request for an object that is new),
  list:  GET of the namespace's ConfigMaps holding all N objects,
and the control plane's heap as counted by the firmware allocator (GET /metrics line
`k32_heap_bytes_in_use`, else the console's STATUS "heapBytes") before and after."""

from __future__ import annotations

import json
import re
import time
import urllib.parse

from k32.httpclient import HttpClient, HttpError

HEAP_METRIC = "k32_heap_bytes_in_use"
_HEAP_RE = re.compile(rf"^{HEAP_METRIC}(?:\{{[^}}]*\}})?\s+([0-9.eE+]+)\s*$", re.M)


class BenchError(RuntimeError):
    pass


def percentile(samples: list[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation: every value reported was measured)."""
    if not samples:
        raise BenchError("no samples")
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * pct // 100))  # ceil without floats drifting
    return ordered[int(rank) - 1]


def summarize(samples_s: list[float]) -> dict:
    ms = [s * 1000.0 for s in samples_s]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(sum(ms) / len(ms), 3),
        "max_ms": round(max(ms), 3),
    }


class Api:
    """A keep-alive HTTP/1.1 connection to the API server (reconnects if the server closes)."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 10.0, ssl_context=None):
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname or not parsed.port:
            raise BenchError(f"API server URL {url!r} must look like http(s)://HOST:PORT")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = HttpClient(url, ssl_context, headers, timeout)

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        try:
            r = self.http.request(method, path, body)
        except HttpError as e:
            raise BenchError(str(e)) from None
        return r.status, r.body

    def close(self) -> None:
        self.http.close()


def heap_bytes(api: Api, console_address: str | None) -> int | None:
    code, body = api.request("GET", "/metrics")
    if code == 200:
        m = _HEAP_RE.search(body.decode(errors="replace"))
        if m:
            return int(float(m.group(1)))
    if console_address:
        from k32.sim.console import ConsoleError, command

        try:
            value = command(console_address, "STATUS").get("heapBytes")
        except ConsoleError:
            return None
        if isinstance(value, int):
            return value
    return None


def configmap(i: int, data_bytes: int) -> dict:
    """The i-th ConfigMap: `data_bytes` of values in its data (64 by default; 1024 gives the
    "1 KB ConfigMap" whose heap cost the store is measured by), split over 64-byte values."""
    data = {"index": str(i)}
    left = max(0, data_bytes - len(data["index"]))
    k = 0
    while left > 0:
        n = min(64, left)
        data[f"k{k:02d}"] = "x" * n
        left -= n
        k += 1
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"bench-{i:04d}", "labels": {"bench": "api"}},
        "data": data,
    }


def run(
    api: Api,
    count: int = 100,
    list_rounds: int = 20,
    namespace: str | None = None,
    console_address: str | None = None,
    data_bytes: int = 64,
) -> dict:
    ns = namespace or f"k32-bench-{int(time.time())}"
    code, body = api.request(
        "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
    )
    if code not in (201, 409):
        raise BenchError(f"creating namespace {ns}: HTTP {code}: {body[:200]!r}")
    heap_before = heap_bytes(api, console_address)
    path = f"/api/v1/namespaces/{ns}/configmaps"
    applies = []
    for i in range(count):
        obj = configmap(i, data_bytes)
        t0 = time.perf_counter()
        code, body = api.request("POST", path, obj)
        applies.append(time.perf_counter() - t0)
        if code != 201:
            raise BenchError(f"POST {path} (bench-{i:04d}): HTTP {code}: {body[:200]!r}")
    lists = []
    for _ in range(list_rounds):
        t0 = time.perf_counter()
        code, body = api.request("GET", path)
        lists.append(time.perf_counter() - t0)
        if code != 200:
            raise BenchError(f"GET {path}: HTTP {code}: {body[:200]!r}")
        items = len(json.loads(body).get("items", []))
        if items != count:
            raise BenchError(f"GET {path} returned {items} items, expected {count}")
    heap_after = heap_bytes(api, console_address)
    return {
        "benchmark": "api",
        "count": count,
        "dataBytes": data_bytes,
        "namespace": ns,
        "apply": summarize(applies),
        "list": dict(summarize(lists), items=count),
        "heapBytes": _heap_summary(heap_before, heap_after, count),
    }


def _heap_summary(before: int | None, after: int | None, count: int) -> dict:
    delta = after - before if before is not None and after is not None else None
    return {
        "before": before,
        "after": after,
        "delta": delta,
        "perObject": round(delta / count, 1) if delta is not None else None,
    }
