"""The kubeconfig merge keeps every other context and never takes over current-context."""

import base64
import os

import pytest
import yaml

from k32.kubeconfig import files as kcfg

OTHER = {
    "apiVersion": "v1",
    "kind": "Config",
    "current-context": "prod",
    "clusters": [{"name": "prod", "cluster": {"server": "https://prod:6443"}}],
    "users": [{"name": "prod", "user": {"token": "prod-token"}}],
    "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "prod"}}],
}


def entry(doc, key, name):
    return next(e for e in doc[key] if e["name"] == name)


def test_new_file_gets_context_and_current_context(tmp_path):
    path = kcfg.write_context("http://127.0.0.1:6443", None, tmp_path / "sub" / "config")
    doc = yaml.safe_load(path.read_text())
    assert doc["current-context"] == "kube32"
    assert entry(doc, "clusters", "kube32")["cluster"] == {"server": "http://127.0.0.1:6443"}
    assert entry(doc, "users", "kube32")["user"] == {}
    assert entry(doc, "contexts", "kube32")["context"] == {"cluster": "kube32", "user": "kube32"}
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_merge_keeps_other_contexts_and_current(tmp_path):
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(OTHER))
    kcfg.write_context("http://127.0.0.1:7000", "t0k", path)
    doc = yaml.safe_load(path.read_text())
    assert doc["current-context"] == "prod"
    assert entry(doc, "users", "prod")["user"] == {"token": "prod-token"}
    assert entry(doc, "clusters", "prod")["cluster"] == {"server": "https://prod:6443"}
    assert entry(doc, "users", "kube32")["user"] == {"token": "t0k"}


def test_rewrite_updates_in_place_without_duplicates(tmp_path):
    path = tmp_path / "config"
    kcfg.write_context("http://127.0.0.1:1", "a", path)
    kcfg.write_context("http://127.0.0.1:2", None, path)
    doc = yaml.safe_load(path.read_text())
    assert [c["name"] for c in doc["clusters"]] == ["kube32"]
    assert entry(doc, "clusters", "kube32")["cluster"]["server"] == "http://127.0.0.1:2"
    assert entry(doc, "users", "kube32")["user"] == {}


def test_https_with_ca(tmp_path):
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    path = kcfg.write_context("https://127.0.0.1:6443", "t", tmp_path / "c", ca_pem=pem)
    cluster = entry(yaml.safe_load(path.read_text()), "clusters", "kube32")["cluster"]
    assert base64.b64decode(cluster["certificate-authority-data"]).decode() == pem


def test_default_path_follows_kubeconfig_env(monkeypatch, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join(["", str(first), str(second)]))
    assert kcfg.default_path() == first
    monkeypatch.delenv("KUBECONFIG")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert kcfg.default_path() == tmp_path / ".kube" / "config"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("clusters: [unclosed", "not valid YAML"),
        ("- a list\n", "top level must be a mapping"),
        ("clusters: {a: 1}\n", "'clusters' must be a list"),
    ],
)
def test_bad_kubeconfig_is_a_clear_error(tmp_path, text, problem):
    path = tmp_path / "config"
    path.write_text(text)
    with pytest.raises(kcfg.KubeconfigError, match=problem):
        kcfg.write_context("http://127.0.0.1:6443", None, path)
    assert path.read_text() == text  # untouched
