"""The example web bundle (examples/cluster-ui.yaml → images/web/cluster) in headless Debian
Chromium: it loads through the Ingress controller, the SSE "cluster" event turns the badge
"live", the telemetry fills the tables, later changes arrive without a reload, and the
screenshot shows it. The PNG and the DOM stay in the test's tmp dir as artifacts."""

import re
from pathlib import Path

import pytest
from browser_cdp import Browser, chromium_binary
from browser_png import decode
from ingress_helpers import apply, get, ingress_address, wait_until

REPO = Path(__file__).resolve().parents[2]
LIVE_TIMEOUT_S = 20.0
# The cluster topic is published every 2 s (app.js); three periods is generous.
UPDATE_TIMEOUT_S = 8.0
RV_JS = "document.getElementById('rv').textContent"


@pytest.fixture(scope="module")
def page(sim_cluster, tmp_path_factory):
    binary = chromium_binary()
    if binary is None:
        pytest.fail("chromium is not installed (Debian package `chromium`, listed in scripts/deps/apt-packages.txt)")
    apply(sim_cluster, (REPO / "examples" / "cluster-ui.yaml").read_text())
    assert wait_until(lambda: get(sim_cluster, "/cluster/")[0] == 200)
    artifacts = tmp_path_factory.mktemp("browser")
    browser = Browser(binary, artifacts / "profile")
    try:
        browser.call("Page.enable")
        ip, port = ingress_address(sim_cluster)
        browser.navigate(f"http://{ip}:{port}/cluster/")
        browser.artifacts = artifacts
        yield browser
    finally:
        browser.close()


def test_page_goes_live_and_lists_every_node(page, sim_cluster):
    assert page.wait_for("document.getElementById('live').textContent === 'live'", LIVE_TIMEOUT_S), (
        "no SSE 'cluster' event reached the page"
    )
    dom = page.dom()
    (page.artifacts / "cluster.html").write_text(dom)
    assert '<span id="live" class="badge ok">live</span>' in dom
    for node in sim_cluster.status()["nodes"]:
        assert re.search(
            rf"<td>{re.escape(node['name'])}</td><td>{node['role']}</td>"
            rf"<td>{re.escape(node['ip'])}</td><td class=\"ready\">Ready</td>",
            dom,
        ), node["name"]
    assert re.search(r'<b id="heap">[1-9][0-9]*</b>', dom), "heap in use not shown"
    assert re.search(r'<span id="viewers" class="badge">[1-9][0-9]* viewing</span>', dom), "presence topic not shown"


@pytest.mark.slow
def test_later_changes_arrive_without_reload(page, sim_cluster):
    assert page.wait_for(f"/^[0-9]+$/.test({RV_JS})", LIVE_TIMEOUT_S)
    before = int(page.evaluate(RV_JS))
    apply(
        sim_cluster,
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: browser-bump\ndata:\n  before: \"{before}\"\n",
    )
    assert page.wait_for(f"Number({RV_JS}) > {before}", UPDATE_TIMEOUT_S), (
        f"resourceVersion on the page stayed at {before}"
    )


@pytest.mark.slow
def test_screenshot_shows_the_live_badge(page):
    assert page.wait_for("document.getElementById('live').className === 'badge ok'", LIVE_TIMEOUT_S)
    png_path = page.artifacts / "cluster.png"
    image = decode(page.screenshot(png_path))
    assert png_path.stat().st_size > 10_000
    assert image.width >= 800 and image.height >= 400
    # Text, tables and badges: a blank or error page has a handful of colours.
    assert image.distinct_colours() >= 50
    badge = page.evaluate(
        "(() => { const r = document.getElementById('live')"
        ".getBoundingClientRect(); return [r.left, r.top, r.width, "
        "getComputedStyle(document.getElementById('live')).backgroundColor]; })()"
    )
    left, top, width, colour = badge
    expected = tuple(int(v) for v in re.findall(r"\d+", colour)[:3])
    # Top padding of the badge, horizontally centred: background, not glyphs or rounding.
    seen = image.pixel(int(left + width / 2), int(top + 2))
    assert all(abs(a - b) <= 3 for a, b in zip(seen, expected)), (seen, expected, str(png_path))
