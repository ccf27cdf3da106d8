"""Objects survive a control-plane reboot (K32_CMD:REBOOT), and the nodes come back Ready.
Runs last: it restarts the control plane."""

import json

import pytest

from k32.testing.poll import wait_until

CM = "/api/v1/namespaces/default/configmaps"


@pytest.mark.slow
def test_reboot_keeps_objects(target):
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "hil-keep"},
        "data": {"text": "survives ☕ a reboot"},
    }
    target.cluster.request("DELETE", f"{CM}/hil-keep")
    assert target.cluster.request("POST", CM, body)[0] == 201
    target.reboot_control_plane()
    code, _, raw = target.cluster.request("GET", f"{CM}/hil-keep")
    assert code == 200, raw[:300]
    assert json.loads(raw)["data"] == body["data"]
    wait_until(lambda: sum(target.cluster.nodes_ready().values()) >= 1 + target.worker_count, 90, interval=1)
    assert sum(target.cluster.nodes_ready().values()) >= 1 + target.worker_count
    target.cluster.request("DELETE", f"{CM}/hil-keep")
