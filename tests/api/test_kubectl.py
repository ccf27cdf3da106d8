"""Issue 2, "Done means": a stock kubectl (1.37 from PyPI, 1.20 from Debian) behaves against the
simulated control plane as against a real cluster. Assertions are on the shapes kubectl prints
for a real kube-apiserver."""

import os
import re
import stat
import subprocess

import pytest
import yaml
from api_helpers import KUBECTL_VERSIONS, LineReader, header, rows
from api_manifests import APPLIED_OBJECTS, MULTI_DOC, POD

from k32.build.tools import kubectl as kubectl_path


@pytest.fixture(scope="module", params=KUBECTL_VERSIONS)
def kc(request, sim_cluster):
    """kc(*args, input=None) runs that kubectl version; kc.ns is its own namespace."""
    version = request.param

    def run(*args, input=None, env=None, timeout=60):
        return sim_cluster.kubectl(*args, version=version, input=input, env=env, timeout=timeout)

    run.version = version
    run.ns = "e2e-kubectl-" + version.replace(".", "")
    run.cluster = sim_cluster
    return run


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, f"kubectl failed ({proc.returncode}): {proc.stderr}"
    return proc.stdout


def make_cm(kc, name: str, **data: str) -> None:
    """Create a ConfigMap with `kubectl apply` (JSON on the wire for every kubectl version), so
    a test of edit/watch/delete does not depend on `kubectl create`'s protobuf body."""
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": kc.ns}, "data": data}
    ok(kc("apply", "-f", "-", input=yaml.safe_dump(doc)))


@pytest.fixture(scope="module")
def applied(kc, tmp_path_factory):
    """The multi-document manifest applied twice: (first output, second output)."""
    path = tmp_path_factory.mktemp("manifests") / "multi.yaml"
    path.write_text(MULTI_DOC.format(ns=kc.ns))
    first = ok(kc("apply", "-f", str(path)))
    second = ok(kc("apply", "-f", str(path)))
    return first, second


def test_version_is_the_one_under_test(kc):
    out = ok(subprocess.run([str(kubectl_path(kc.version)), "version", "--client"], capture_output=True, text=True))
    assert re.search(r"v" + re.escape(kc.version) + r"\.\d+", out), out


def test_get_nodes_shows_three_ready_nodes(kc):
    out = ok(kc("get", "nodes"))
    assert header(out) == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    table = rows(out)
    assert len(table) == 3, out
    assert all(r[1] == "Ready" for r in table.values()), out
    roles = {name: r[2] for name, r in table.items()}
    assert sum("control-plane" in r for r in roles.values()) == 1, out
    names = {n["name"] for n in kc.cluster.status()["nodes"]}
    assert set(table) == names


def test_apply_multi_document_creates_everything(kc, applied):
    first, _ = applied
    lines = first.strip().splitlines()
    expected = [o.format(ns=kc.ns) for o in APPLIED_OBJECTS]
    assert [line.split()[0] for line in lines] == expected, first
    # The namespace may exist from an earlier run of this session's cluster; the rest is new.
    assert all(line.endswith(" created") for line in lines[1:]), first


def test_reapply_is_a_no_op(kc, applied):
    _, second = applied
    lines = second.strip().splitlines()
    assert len(lines) == len(APPLIED_OBJECTS), second
    assert all(line.endswith(" unchanged") for line in lines), second


def test_get_yaml_returns_the_stored_object(kc, applied):
    doc = yaml.safe_load(ok(kc("get", "configmap", "settings", "-n", kc.ns, "-o", "yaml")))
    assert doc["apiVersion"] == "v1" and doc["kind"] == "ConfigMap"
    meta = doc["metadata"]
    assert meta["name"] == "settings" and meta["namespace"] == kc.ns
    assert meta["uid"] and meta["resourceVersion"] and meta["creationTimestamp"]
    assert "kubectl.kubernetes.io/last-applied-configuration" in meta.get("annotations", {})
    assert doc["data"] == {"greeting": "hello"}


def test_get_list_yaml_is_a_list(kc, applied):
    doc = yaml.safe_load(ok(kc("get", "configmaps", "-n", kc.ns, "-o", "yaml")))
    assert doc["kind"] == "List" and doc["apiVersion"] == "v1"
    names = {item["metadata"]["name"] for item in doc["items"]}
    assert {"settings", "extra"} <= names


def test_table_shapes(kc, applied):
    out = ok(kc("get", "configmaps", "-n", kc.ns))
    assert header(out) == ["NAME", "DATA", "AGE"]
    assert rows(out)["settings"][1] == "1"

    out = ok(kc("get", "services", "-n", kc.ns))
    assert header(out) == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    assert rows(out)["web"][4] == "80/TCP"

    out = ok(kc("get", "ingress", "-n", kc.ns))
    assert header(out) == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    web = rows(out)["web"]
    assert web[2] == "web.kube32.local" and "80" in web

    out = ok(kc("get", "networkpolicies", "-n", kc.ns))
    assert header(out) == ["NAME", "POD-SELECTOR", "AGE"]
    assert rows(out)["web-allow"][1] == "app=web"


def test_get_pods_table(kc, applied):
    ok(kc("apply", "-f", "-", input=POD.format(ns=kc.ns)))
    out = ok(kc("get", "pods", "-n", kc.ns))
    assert header(out) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    idle = rows(out)["idle"]
    assert re.fullmatch(r"\d+/1", idle[1]), out
    ok(kc("delete", "pod", "idle", "-n", kc.ns, "--wait=false"))


def test_empty_list_message(kc, applied):
    proc = kc("get", "pods", "-n", "e2e-empty-" + kc.version.replace(".", ""))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "No resources found" in proc.stderr


def test_describe(kc, applied):
    out = ok(kc("describe", "configmap", "settings", "-n", kc.ns))
    assert re.search(r"^Name:\s+settings$", out, re.M), out
    assert re.search(rf"^Namespace:\s+{kc.ns}$", out, re.M), out
    assert re.search(r"^greeting:\n-+\nhello$", out, re.M), out

    out = ok(kc("describe", "service", "web", "-n", kc.ns))
    assert re.search(r"^Selector:\s+app=web$", out, re.M), out
    assert re.search(r"^Port:\s+http\s+80/TCP$", out, re.M), out

    cp = next(n["name"] for n in kc.cluster.status()["nodes"] if n["role"] == "control-plane")
    out = ok(kc("describe", "node", cp))
    assert re.search(rf"^Name:\s+{cp}$", out, re.M), out
    assert re.search(r"^Conditions:", out, re.M), out
    assert re.search(r"^\s+Ready\s+True\s", out, re.M), out


def test_edit_with_kube_editor(kc, applied, tmp_path):
    make_cm(kc, "editme", greeting="hello")
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/greeting: hello/greeting: edited/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    out = ok(kc("edit", "configmap", "editme", "-n", kc.ns, env={"KUBE_EDITOR": str(editor), "EDITOR": str(editor)}))
    assert "configmap/editme edited" in out, out
    got = ok(kc("get", "configmap", "editme", "-n", kc.ns, "-o", "jsonpath={.data.greeting}"))
    assert got == "edited"


def test_label_and_select(kc, applied):
    out = ok(kc("label", "configmap", "extra", "-n", kc.ns, "tier=backend"))
    assert "configmap/extra labeled" in out, out
    out = ok(kc("get", "configmaps", "-n", kc.ns, "-l", "tier=backend", "-o", "name"))
    assert out.split() == ["configmap/extra"]
    proc = kc("label", "configmap", "extra", "-n", kc.ns, "tier=frontend")
    assert proc.returncode != 0 and "--overwrite" in proc.stderr, proc.stderr
    out = ok(kc("label", "configmap", "extra", "-n", kc.ns, "tier-"))
    assert "configmap/extra unlabeled" in out or "configmap/extra labeled" in out, out
    out = ok(kc("get", "configmaps", "-n", kc.ns, "-l", "tier=backend", "-o", "name"))
    assert out.strip() == ""


def test_annotate(kc, applied):
    out = ok(kc("annotate", "configmap", "extra", "-n", kc.ns, "note=hi there"))
    assert "configmap/extra annotated" in out, out
    got = ok(kc("get", "configmap", "extra", "-n", kc.ns, "-o", "jsonpath={.metadata.annotations.note}"))
    assert got == "hi there"


def test_get_watch_streams_changes(kc, applied):
    argv = [
        str(kubectl_path(kc.version)),
        "--kubeconfig",
        str(kc.cluster.kubeconfig),
        "--context",
        kc.cluster.context,
        "get",
        "configmaps",
        "-n",
        kc.ns,
        "-w",
    ]
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        reader = LineReader(proc)
        first = reader.wait_for(lambda line: line.startswith("settings"))
        assert first[0].split() == ["NAME", "DATA", "AGE"], first
        make_cm(kc, "watched", k="v")
        reader.wait_for(lambda line: line.split()[:2] == ["watched", "1"])
        ok(kc("delete", "configmap", "watched", "-n", kc.ns))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_delete(kc, applied):
    make_cm(kc, "doomed", k="v")
    out = ok(kc("delete", "configmap", "doomed", "-n", kc.ns))
    assert re.search(r'configmap "doomed" deleted', out), out
    proc = kc("get", "configmap", "doomed", "-n", kc.ns)
    assert proc.returncode != 0
    assert 'Error from server (NotFound): configmaps "doomed" not found' in proc.stderr

    out = ok(kc("delete", "networkpolicy", "web-allow", "-n", kc.ns))
    assert 'networkpolicy.networking.k8s.io "web-allow" deleted' in out, out
    proc = kc("delete", "networkpolicy", "web-allow", "-n", kc.ns)
    assert proc.returncode != 0 and "(NotFound)" in proc.stderr, proc.stderr


def test_create_imperative(kc, applied):
    """`kubectl create` uses the typed clientset: kubectl 1.37 sends a protobuf body there
    (client-go's default for built-in kinds), which kube-apiserver accepts."""
    out = ok(kc("create", "configmap", "imperative", "-n", kc.ns, "--from-literal=k=v"))
    assert out.strip() == "configmap/imperative created"
    got = ok(kc("get", "configmap", "imperative", "-n", kc.ns, "-o", "jsonpath={.data.k}"))
    assert got == "v"
    proc = kc("create", "configmap", "imperative", "-n", kc.ns, "--from-literal=k=v")
    assert proc.returncode != 0
    # kubectl's create generators wrap the server's AlreadyExists Status in their own words
    # ("failed to create configmap: ..."), as against kube-apiserver.
    assert 'configmaps "imperative" already exists' in proc.stderr
    ok(kc("create", "namespace", kc.ns + "-imp"))
    out = ok(kc("get", "namespace", kc.ns + "-imp", "--no-headers"))
    assert out.split()[:2] == [kc.ns + "-imp", "Active"]


def test_apply_changed_object_is_configured(kc, applied):
    doc = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "evolving", "namespace": kc.ns},
        "data": {"keep": "1", "change": "a", "drop": "x"},
    }
    assert ok(kc("apply", "-f", "-", input=yaml.safe_dump(doc))).strip() == "configmap/evolving created"
    doc["data"] = {"keep": "1", "change": "b"}
    assert ok(kc("apply", "-f", "-", input=yaml.safe_dump(doc))).strip() == "configmap/evolving configured"
    got = yaml.safe_load(ok(kc("get", "configmap", "evolving", "-n", kc.ns, "-o", "yaml")))
    # The three-way merge removes what the previous apply set and this one does not.
    assert got["data"] == {"keep": "1", "change": "b"}


@pytest.mark.slow
def test_patch_command(kc, applied):
    make_cm(kc, "patchme", a="1")
    out = ok(kc("patch", "configmap", "patchme", "-n", kc.ns, "-p", '{"data":{"b":"2"}}'))
    assert out.strip() == "configmap/patchme patched"
    ok(kc("patch", "configmap", "patchme", "-n", kc.ns, "--type", "merge", "-p", '{"data":{"a":null}}'))
    ok(
        kc(
            "patch",
            "configmap",
            "patchme",
            "-n",
            kc.ns,
            "--type",
            "json",
            "-p",
            '[{"op":"add","path":"/data/c","value":"3"}]',
        )
    )
    got = ok(kc("get", "configmap", "patchme", "-n", kc.ns, "-o", "jsonpath={.data}"))
    assert yaml.safe_load(got) == {"b": "2", "c": "3"}


def test_api_resources(kc):
    out = ok(kc("api-resources"))
    assert header(out) == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    kinds = {line.split()[-1] for line in out.strip().splitlines()[1:]}
    assert {"ConfigMap", "Namespace", "Node", "Pod", "Service", "Ingress", "NetworkPolicy"} <= kinds


def test_get_nodes_wide_shows_node_ips(kc):
    out = ok(kc("get", "nodes", "-o", "wide"))
    cols = header(out)
    assert cols[:7] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP"]
    table = rows(out)
    for node in kc.cluster.status()["nodes"]:
        assert table[node["name"]][5] == node["ip"], out
