"""`k32 apigen write`, `python -m k32.apigen`, and one-line errors on bad input."""

import subprocess
import sys

import pytest
from click.testing import CliRunner

from k32 import REPO_ROOT
from k32.apigen import source
from k32.apigen.cli import apigen
from k32.apigen.schema_table import Table, TableError, build_table


def test_cli_write(tmp_path):
    r = CliRunner().invoke(apigen, ["write", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "out" / "openapi" / "v3" / "api" / "v1.json").is_file()


@pytest.mark.slow
def test_module_writes_cpp(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "k32.apigen", "--cpp-out", str(tmp_path)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO_ROOT / "host_tools")},
    )
    assert r.returncode == 0, r.stderr
    docs = (tmp_path / "k32_openapi_docs.cpp").read_text()
    assert '{"/openapi/v2", true,' in docs
    table = (tmp_path / "k32_schema_table.cpp").read_text()
    assert '{"v1/Pod", ' in table and '"networking.k8s.io/v1/Ingress"' in table


def test_module_needs_an_output():
    r = subprocess.run(
        [sys.executable, "-m", "k32.apigen"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO_ROOT / "host_tools")},
    )
    assert r.returncode != 0 and "nothing to do" in r.stderr


def test_unknown_kubernetes_version():
    with pytest.raises(source.SourceError, match="no schemas for Kubernetes 0.1"):
        source.load_upstream("0.1")


def test_patch_table_disagreeing_with_upstream(monkeypatch):
    bad = dict(source.PATCH_KEYS)
    bad[("io.k8s.api.core.v1.PodSpec", "containers")] = ("merge", "image")
    monkeypatch.setattr(source, "PATCH_KEYS", bad)
    with pytest.raises(source.SourceError, match="PodSpec.containers x-kubernetes-patch-merge-key is 'image' here"):
        source.served_definitions()


def test_schema_table_rejects_unknown_list_type():
    defs = {"X": {"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "bag"}}}}

    with pytest.raises(TableError, match="X.l: unknown x-kubernetes-list-type 'bag'"):
        Table(defs).named_node("X")


def test_schema_table_shape():
    table, kinds = build_table(source.served_definitions())
    assert dict(kinds)["v1/Pod"] > 0
    pod_spec = table.nodes[table.named["io.k8s.api.core.v1.PodSpec"]]
    fields = table.fields[pod_spec["first_field"] : pod_spec["first_field"] + pod_spec["n_fields"]]
    names = [f[0] for f in fields]
    assert names == sorted(names) and "containers" in names
    containers = table.nodes[dict((f[0], f[1]) for f in fields)["containers"]]
    assert containers["merge_key"] == "name" and containers["list_type"] == "Map"


def test_patch_table_must_list_every_upstream_strategy(monkeypatch):
    incomplete = dict(source.PATCH_KEYS)
    del incomplete[("io.k8s.api.core.v1.Container", "env")]
    monkeypatch.setattr(source, "PATCH_KEYS", incomplete)
    with pytest.raises(source.SourceError, match="Container.env: upstream declares patch strategy 'merge'; add it"):
        source.served_definitions()
