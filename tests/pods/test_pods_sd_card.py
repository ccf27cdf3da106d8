"""wasm://sd/<name> images on a card directory (the simulator's --sd DIR): loading, the
@sha256 pin, a missing image, and k32_resp_asset serving the image's bundle files."""

import gzip

import pytest
from pods_helpers import apply, container_status, get_pod, pod_request, wait_until

from k32.images.build import build_all
from k32.sim.cluster import SimCluster, find_free_base_port


@pytest.fixture(scope="module")
def sd_cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("sd")
    card = root / "card"
    built = {i.name: i for i in build_all(root / "images", only=["echo", "assets"])}
    for name in ("echo", "assets"):
        d = card / "kube32" / "images" / name
        d.mkdir(parents=True)
        (d / f"{name}.wasm").write_bytes(built[name].wasm.read_bytes())
    bundle = card / "kube32" / "images" / "assets"
    (bundle / "index.html").write_text("<h1>card</h1>\n")
    (bundle / "app.js").write_text("console.log('plain')\n")
    (bundle / "app.js.gz").write_bytes(gzip.compress(b"console.log('gz')\n", mtime=0))
    (bundle / "only.css.gz").write_bytes(gzip.compress(b"body{}\n", mtime=0))
    state = root / "sim"
    cluster = SimCluster(
        state,
        workers=0,
        base_port=find_free_base_port(0),
        kubeconfig=state / "kubeconfig",
        die_with_parent=True,
        sd_dir=card,
    )
    cluster.up()
    cluster.digests = {n: i.sha256 for n, i in built.items()}
    yield cluster
    cluster.down()


def _running(cluster, name):
    return wait_until(lambda: (q := get_pod(cluster, name)) and q["status"].get("phase") in ("Running", "Failed") and q)


def test_sd_image_loads_and_pins(sd_cluster):
    digest = sd_cluster.digests["echo"]
    apply(
        sd_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: sd-echo}}
spec:
  containers:
  - name: echo
    image: wasm://sd/echo@sha256:{digest}
    env: [{{name: GREETING, value: from-the-card}}]
""",
    )
    pod = _running(sd_cluster, "sd-echo")
    assert pod and pod["status"]["phase"] == "Running", pod
    assert container_status(pod)["imageID"] == f"wasm://sd/echo@sha256:{digest}"
    node = pod["spec"]["nodeName"]
    status, _, body = pod_request(sd_cluster, node, "default/sd-echo", "POST", "/x", b"y")
    assert status == 200 and body == b"from-the-card\nPOST /x\ny"


def test_sd_missing_image(sd_cluster):
    apply(
        sd_cluster,
        """
apiVersion: v1
kind: Pod
metadata: {name: sd-missing}
spec:
  restartPolicy: Never
  containers: [{name: c, image: wasm://sd/nothing-here}]
""",
    )
    pod = _running(sd_cluster, "sd-missing")
    term = container_status(pod)["state"]["terminated"]
    assert term["reason"] == "ErrImagePull" and "kube32/images/nothing-here/nothing-here.wasm" in term["message"]


def test_resp_asset_serves_the_bundle(sd_cluster):
    apply(
        sd_cluster,
        """
apiVersion: v1
kind: Pod
metadata: {name: sd-assets}
spec:
  containers: [{name: c, image: wasm://sd/assets}]
""",
    )
    pod = _running(sd_cluster, "sd-assets")
    assert pod and pod["status"]["phase"] == "Running", pod
    node = pod["spec"]["nodeName"]
    req = lambda path, **h: pod_request(sd_cluster, node, "default/sd-assets", path=path, headers=h)  # noqa: E731
    status, headers, body = req("/index.html")
    assert status == 200 and body == b"<h1>card</h1>\n"
    assert headers["content-type"].startswith("text/html") and headers["x-served-by"] == "assets"
    status, headers, body = req("/app.js", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == b"console.log('gz')\n"
    status, headers, body = req("/app.js")
    assert status == 200 and "content-encoding" not in headers and body == b"console.log('plain')\n"
    status, _, _ = req("/only.css")
    assert status == 406
    status, headers, body = req("/missing.txt")
    assert status == 404 and body == b"no such asset\n" and headers["x-served-by"] == "assets"
    status, _, body = req("/../../etc/passwd")
    assert status == 404 and body == b"no such asset\n"
