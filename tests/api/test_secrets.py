"""Secrets: stringData is write-only and folds into base64 data (a regression test: folding
it once read a member the insertion had moved, and the control plane crashed)."""

import base64
import json


def test_string_data_folds_into_data(sim_cluster):
    manifest = """apiVersion: v1
kind: Secret
metadata: {name: sd-test, namespace: default}
type: Opaque
stringData: {user: admin, pass_word: "s3 cr\\"et é"}
data: {pre: YWJj}
"""
    proc = sim_cluster.kubectl("apply", "-f", "-", input=manifest)
    assert proc.returncode == 0, proc.stderr
    code, _, body = sim_cluster.request("GET", "/api/v1/namespaces/default/secrets/sd-test")
    assert code == 200
    obj = json.loads(body)
    assert "stringData" not in obj
    data = {k: base64.b64decode(v).decode() for k, v in obj["data"].items()}
    assert data == {"pre": "abc", "user": "admin", "pass_word": 's3 cr"et é'}
    assert sim_cluster.request("GET", "/healthz")[0] == 200
