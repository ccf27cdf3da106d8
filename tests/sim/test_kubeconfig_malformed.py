"""Kubeconfig files are outside input: every malformed one, whether from a table of known
shapes or from seeded mutations of a real one, ends in a KubeconfigError that names the file
and the field, never in a traceback, and never in a weaker connection than the file asked for."""

import base64
import random

import pytest
import yaml

from k32.kubeconfig import files as kcfg
from k32.kubeconfig.connect import connect

CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n").decode()


def config(cluster: dict, user: dict | None = None) -> str:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "a",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "u", "user": user or {}}],
        "contexts": [{"name": "a", "context": {"cluster": "c", "user": "u"}}],
    }
    return yaml.safe_dump(doc)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: " + "[" * 1000 + "]" * 1000, "nested too deeply"),
        (
            config({"server": "https://x", "certificate-authority-data": 5}),
            "certificate-authority-data: must be a string",
        ),
        (
            config({"server": "https://x", "certificate-authority-data": "!!!"}),
            "certificate-authority-data: not base64",
        ),
        (config({"server": "https://x", "certificate-authority": ["a"]}), "certificate-authority: must be a string"),
        (
            config({"server": "https://x", "insecure-skip-tls-verify": "false"}),
            "insecure-skip-tls-verify: must be true",
        ),
        (config({"server": "http://x"}, {"token": 5}), "token: must be a string"),
        (config({"server": "http://x"}, {"token": "t\r\nX-Evil: 1"}), "token: holds a control character"),
        (config({"server": "http://x"}, {"tokenFile": {"a": 1}}), "tokenFile: must be a string"),
        (config({"server": "http://x"}, {"username": 1, "password": "p"}), "username: must be a string"),
        (config({"server": "http://[::1"}), "Invalid IPv6 URL"),
        (config({"server": "http://x:99999"}), "Port out of range"),
        (config({"server": "https://"}), "must be http"),
        (config({"server": "ftp://x"}), "must be http"),
        (config({"server": 5}), "has no server"),
    ],
)
def test_malformed_kubeconfig_is_a_clear_error(tmp_path, text, problem):
    path = tmp_path / "config"
    path.write_text(text)
    with pytest.raises(kcfg.KubeconfigError, match=problem) as e:
        connect(None, path)
    assert str(path) in str(e.value) or "context 'a'" in str(e.value)


def test_deeply_nested_file_is_refused_before_writing(tmp_path):
    path = tmp_path / "config"
    text = "clusters: " + "[" * 1000 + "]" * 1000
    path.write_text(text)
    with pytest.raises(kcfg.KubeconfigError, match="nested too deeply"):
        kcfg.write_context("http://127.0.0.1:6443", None, path)
    assert path.read_text() == text


def test_wrapped_base64_is_read_as_kubectl_reads_it(tmp_path):
    """kubectl's decoder skips line breaks in *-data, so a wrapped CA is still a CA (here
    one ssl cannot load, which is a credentials error, not a base64 one)."""
    wrapped = "\n".join(CA[i : i + 20] for i in range(0, len(CA), 20))
    path = tmp_path / "config"
    path.write_text(config({"server": "https://x", "certificate-authority-data": wrapped}))
    with pytest.raises(kcfg.KubeconfigError, match="credentials"):
        connect(None, path)


JUNK = [
    "",
    ":",
    "- ",
    "{",
    "}",
    "[",
    "]",
    "&a",
    "*a",
    "!!binary",
    "\t",
    "null",
    "5",
    "true",
    "'",
    '"',
    "é",
    "\x7f",
    "|",
]


@pytest.mark.slow  # 400 parses and TLS contexts
def test_seeded_mutations_end_in_a_connection_or_a_clear_error(tmp_path):
    base = config({"server": "https://127.0.0.1:6443", "insecure-skip-tls-verify": True}, {"token": "abc"})
    rng = random.Random(4321)
    path = tmp_path / "config"
    outcomes = {"ok": 0, "error": 0}
    for _ in range(400):
        chars = list(base)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars) + 1)
            if rng.random() < 0.4 and chars:
                del chars[min(pos, len(chars) - 1)]
            else:
                chars[pos:pos] = rng.choice(JUNK)
        path.write_text("".join(chars))
        try:
            conn = connect(None, path)
        except kcfg.KubeconfigError:
            outcomes["error"] += 1
            continue
        outcomes["ok"] += 1
        # What connects is what the file says: TLS verification is off only by a real `true`.
        doc = yaml.safe_load(path.read_text())
        cluster = next(c["cluster"] for c in doc["clusters"] if c["name"] == doc["contexts"][0]["context"]["cluster"])
        if conn.server.startswith("https://") and cluster.get("insecure-skip-tls-verify") is not True:
            assert conn.ssl_context.verify_mode != 0
        assert all("\n" not in v and "\r" not in v for v in conn.headers.values())
    assert outcomes["ok"] and outcomes["error"]  # the mutations reached both sides
