"""Lists as clients read them: the API server writes a stored list item by item (so the node
never holds every item's tree at once), and the result must still be one list with its
resourceVersion, label selectors applied, and pages (`limit`, `continue`,
`remainingItemCount`) that together return every item once, in order."""

import json

import pytest

NS = "e2e-list-pages"
COUNT = 7
PAGE = 3


def api(cluster, method, path, body=None):
    status, headers, raw = cluster.request(method, path, body=body)
    return status, headers, (json.loads(raw) if raw.strip() else {})


@pytest.fixture(scope="module")
def objects(sim_cluster):
    assert api(sim_cluster, "POST", "/api/v1/namespaces", {"metadata": {"name": NS}})[0] in (201, 409)
    names = [f"cm-{i}" for i in range(COUNT)]
    for i, n in enumerate(names):
        cm = {"metadata": {"name": n, "labels": {"parity": "even" if i % 2 == 0 else "odd"}}, "data": {"i": str(i)}}
        status, _, body = api(sim_cluster, "POST", f"/api/v1/namespaces/{NS}/configmaps", cm)
        assert status in (201, 409), body
    return sim_cluster, names


def test_a_whole_list_is_one_object_with_its_resource_version(objects):
    cluster, names = objects
    status, headers, body = api(cluster, "GET", f"/api/v1/namespaces/{NS}/configmaps")
    assert status == 200, body
    assert body["kind"] == "ConfigMapList" and body["apiVersion"] == "v1"
    assert [o["metadata"]["name"] for o in body["items"]] == names
    assert [o["data"]["i"] for o in body["items"]] == [str(i) for i in range(COUNT)]
    rv = int(body["metadata"]["resourceVersion"])
    assert rv >= max(int(o["metadata"]["resourceVersion"]) for o in body["items"])
    assert "continue" not in body["metadata"]


def test_a_label_selector_keeps_only_its_items(objects):
    cluster, names = objects
    status, _, body = api(cluster, "GET", f"/api/v1/namespaces/{NS}/configmaps?labelSelector=parity%3Dodd")
    assert status == 200, body
    assert [o["metadata"]["name"] for o in body["items"]] == names[1::2]


def test_pages_return_every_item_once_in_order(objects):
    cluster, names = objects
    seen, token, pages = [], None, 0
    while True:
        path = f"/api/v1/namespaces/{NS}/configmaps?limit={PAGE}" + (f"&continue={token}" if token else "")
        status, _, body = api(cluster, "GET", path)
        assert status == 200, body
        pages += 1
        items = [o["metadata"]["name"] for o in body["items"]]
        assert len(items) <= PAGE
        seen += items
        token = body["metadata"].get("continue")
        if not token:
            assert "remainingItemCount" not in body["metadata"]
            break
        assert body["metadata"]["remainingItemCount"] == COUNT - len(seen)
    assert seen == names
    assert pages == -(-COUNT // PAGE)


def test_an_empty_list_has_no_items(objects):
    cluster, _ = objects
    status, _, body = api(cluster, "GET", f"/api/v1/namespaces/{NS}/configmaps?labelSelector=parity%3Dnone")
    assert status == 200, body
    assert body["items"] == [] and body["kind"] == "ConfigMapList"


# Namespaces where one name is the other's prefix followed by "-": a list across namespaces
# goes namespace by namespace ("lp" before "lp-b"), while the strings "lp/..." and "lp-b/..."
# sort the other way ('-' comes before '/'). A page boundary after an "lp" item must still
# lead on to "lp-b"'s items.
PREFIX_NAMESPACES = ("e2e-lp", "e2e-lp-b", "e2e-lp-b-c")


def test_pages_across_namespaces_return_every_item(sim_cluster):
    for ns in PREFIX_NAMESPACES:
        assert api(sim_cluster, "POST", "/api/v1/namespaces", {"metadata": {"name": ns}})[0] in (201, 409)
        for n in ("a", "z"):
            cm = {"metadata": {"name": f"pfx-{n}", "labels": {"e2e-lp": "1"}}, "data": {}}
            status, _, body = api(sim_cluster, "POST", f"/api/v1/namespaces/{ns}/configmaps", cm)
            assert status in (201, 409), body
    want = sorted(f"{ns}/pfx-{n}" for ns in PREFIX_NAMESPACES for n in ("a", "z"))
    whole = sim_cluster.kubectl(
        "get",
        "configmaps",
        "-A",
        "-l",
        "e2e-lp=1",
        "-o",
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}",
    )
    assert sorted(whole.stdout.split()) == want, whole.stdout
    for size in (1, 2, 3):
        paged = sim_cluster.kubectl(
            "get",
            "configmaps",
            "-A",
            "-l",
            "e2e-lp=1",
            f"--chunk-size={size}",
            "-o",
            "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}",
        )
        assert sorted(paged.stdout.split()) == want, (size, paged.stdout)
