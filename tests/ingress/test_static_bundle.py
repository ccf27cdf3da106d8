"""Ingress StaticBundle resource backends (prefix stripping, gzip variants and 406,
index.html fallback, Cache-Control) against the embedded cluster bundle
(images/web/cluster: index.html, app.js with app.js.gz, style.css stored only as .gz)."""

import gzip
from pathlib import Path

import pytest
from ingress_helpers import apply, get, wait_until

BUNDLE = Path(__file__).resolve().parents[2] / "images" / "web" / "cluster"


@pytest.fixture(scope="module")
def ui(sim_cluster):
    apply(sim_cluster, (Path(__file__).resolve().parents[2] / "examples" / "cluster-ui.yaml").read_text())
    assert wait_until(lambda: get(sim_cluster, "/cluster/")[0] == 200)
    yield sim_cluster


def test_index_with_prefix_stripped_and_no_cache(ui):
    status, headers, body = get(ui, "/cluster/")
    assert status == 200
    assert body == (BUNDLE / "index.html").read_bytes()
    assert headers["content-type"].startswith("text/html")
    assert headers["cache-control"] == "no-cache"


def test_plain_file_cached_for_an_hour(ui):
    status, headers, body = get(ui, "/cluster/app.js")
    assert status == 200 and body == (BUNDLE / "app.js").read_bytes()
    assert headers["cache-control"] == "public, max-age=3600"
    assert headers["content-type"].startswith("text/javascript")
    assert "content-encoding" not in headers


def test_gzip_variant_when_accepted(ui):
    status, headers, body = get(ui, "/cluster/app.js", headers={"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == (BUNDLE / "app.js").read_bytes()


def test_gzip_refused_with_q_zero(ui):
    """RFC 9110: q=0 means "not acceptable", so "gzip;q=0" gets the plain file (or 406)."""
    status, headers, body = get(ui, "/cluster/app.js", headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert status == 200 and "content-encoding" not in headers
    assert body == (BUNDLE / "app.js").read_bytes()
    assert get(ui, "/cluster/style.css", headers={"Accept-Encoding": "gzip;q=0"})[0] == 406


def test_gzip_only_file_is_406_without_gzip(ui):
    assert get(ui, "/cluster/style.css")[0] == 406
    status, headers, body = get(ui, "/cluster/style.css", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["content-type"].startswith("text/css")


def test_spa_fallback_and_missing_file(ui):
    status, _, body = get(ui, "/cluster/nodes/w1")
    assert status == 200 and body == (BUNDLE / "index.html").read_bytes()
    assert get(ui, "/cluster/missing.js")[0] == 404


def test_etag_and_head(ui):
    status, headers, _ = get(ui, "/cluster/app.js")
    etag = headers["etag"]
    assert get(ui, "/cluster/app.js", headers={"If-None-Match": etag})[0] == 304
    status, headers, body = get(ui, "/cluster/app.js", method="HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) == len((BUNDLE / "app.js").read_bytes())


def test_telemetry_and_event_stream(ui):
    import http.client
    import json

    status, _, body = get(ui, "/cluster/telemetry")
    t = json.loads(body)
    assert status == 200 and len(t["nodes"]) == 3
    from ingress_helpers import ingress_address

    ip, port = ingress_address(ui)
    conn = http.client.HTTPConnection(ip, port, timeout=10)
    conn.request("GET", "/cluster/events")
    resp = conn.getresponse()
    assert resp.getheader("Content-Type") == "text/event-stream"
    seen = set()
    buf = b""
    while not {"cluster", "presence"} <= seen:
        buf += resp.readline()
        if buf.endswith(b"\n") and buf.startswith(b"event: "):
            seen.add(buf[7:].strip().decode())
        if buf.endswith(b"\n"):
            buf = b""
    conn.close()
