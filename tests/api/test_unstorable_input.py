"""Bytes that are not UTF-8 have no JSON form: taken into an object, they would be written to
the store as a record it cannot read back, and the control plane would not start again. A
field manager's name (the fieldManager parameter, else the client's User-Agent) and a YAML
body are where a client can send them; each is refused or replaced before the store, and a
restart keeps every acknowledged object."""

import json

NS_PATH = "/api/v1/namespaces/default/configmaps"


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def test_client_bytes_that_are_not_utf8_never_reach_the_store(sim_factory):
    cluster = sim_factory(workers=0)
    cluster.up()
    # fieldManager on a create and on a server-side apply: 422 naming the parameter.
    code, _, raw = cluster.request("POST", NS_PATH + "?fieldManager=%ff", configmap("fm"))
    assert code == 422, raw[:300]
    assert b"fieldManager" in raw
    code, _, raw = cluster.request(
        "PATCH",
        NS_PATH + "/fm?fieldManager=caf%e9",
        json.dumps(configmap("fm")),
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert code == 422, raw[:300]
    # Longer than kube-apiserver's 128 characters, or a control character: refused too.
    assert cluster.request("POST", NS_PATH + "?fieldManager=" + "m" * 129, configmap("long"))[0] == 422
    assert cluster.request("POST", NS_PATH + "?fieldManager=a%0Ab", configmap("ctl"))[0] == 422
    # A User-Agent that is not UTF-8 names no manager: the write is stored under "unknown".
    code, _, raw = cluster.request("POST", NS_PATH, configmap("ua"), headers={"User-Agent": "\xff\xfe/1.0"})
    assert code == 201, raw[:300]
    assert [e["manager"] for e in json.loads(raw)["metadata"]["managedFields"]] == ["unknown"]
    # A YAML body: 400 naming the line.
    code, _, raw = cluster.request(
        "POST",
        NS_PATH,
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: caf\xe9\n",
        headers={"Content-Type": "application/yaml"},
    )
    assert code == 400, raw[:300]
    assert b"line 6" in raw and b"UTF-8" in raw
    assert cluster.request("POST", NS_PATH, configmap("after"))[0] == 201
    cluster.down()
    cluster.up()
    for name in ("ua", "after"):
        assert cluster.request("GET", f"{NS_PATH}/{name}")[0] == 200, name
