"""`kubectl run NAME --image=...` for Wasm images: kubectl checks --image as an OCI reference
and refuses wasm://embedded/echo before it sends anything, so the node also accepts the
OCI-form alias kube32.io/embedded/<name> (and kube32.io/sd/<name>@sha256:<hex>)."""

import json

import pytest
from pods_helpers import get_pod, wait_until


@pytest.mark.slow
@pytest.mark.parametrize("version", ["1.20", "1.37"])
def test_kubectl_run_with_the_oci_alias(sim_cluster, version):
    name = f"oci-echo-{version.replace('.', '-')}"
    try:
        r = sim_cluster.kubectl("run", name, "--image=kube32.io/embedded/echo", "--restart=Never", version=version)
        assert r.returncode == 0, r.stderr
        pod = wait_until(
            lambda: (p := get_pod(sim_cluster, name)) and p["status"].get("phase") == "Running" and p, timeout=30
        )
        assert pod, f"pod never ran: {get_pod(sim_cluster, name)}"
        status = pod["status"]["containerStatuses"][0]
        # The runtime reports the image it resolved, pinned by the digest it verified.
        assert status["imageID"].startswith("wasm://embedded/echo@sha256:")
    finally:
        sim_cluster.kubectl("delete", "pod", name, "--wait=false", "--ignore-not-found")


def test_kubectl_rejects_the_wasm_scheme_itself(sim_cluster):
    r = sim_cluster.kubectl("run", "wasm-scheme", "--image=wasm://embedded/echo", "--restart=Never")
    assert r.returncode != 0 and "invalid" in r.stderr.lower()


@pytest.mark.slow
def test_an_alias_with_an_unknown_source_fails_the_pod(sim_cluster):
    name = "oci-bad-source"
    try:
        r = sim_cluster.kubectl("run", name, "--image=kube32.io/flash/echo", "--restart=Never")
        assert r.returncode == 0, r.stderr

        def waiting():
            p = get_pod(sim_cluster, name) or {}
            st = (p.get("status", {}).get("containerStatuses") or [{}])[0]
            state = st.get("state") or {}
            w = state.get("terminated") or state.get("waiting") or {}
            return w if w.get("reason") == "InvalidImageName" else None

        w = wait_until(waiting, timeout=30)
        status = (get_pod(sim_cluster, name) or {}).get("status")
        assert w and "unknown source" in w.get("message", ""), json.dumps(status)
    finally:
        sim_cluster.kubectl("delete", "pod", name, "--wait=false", "--ignore-not-found")
