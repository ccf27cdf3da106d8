"""The ABI's single source: the generated files are current, `k32 abi check` notices a
change, bad ABI files get one-line errors, and the error codes keep the values pods are compiled
against (changing one breaks every built image)."""

import textwrap

import pytest
import yaml
from click.testing import CliRunner

from k32.abi import gen
from k32.abi.cli import abi
from k32.abi.model import ABI_FILE, AbiError, load, parse

PUBLISHED_CODES = {
    "PERM": -1,
    "NOENT": -2,
    "IO": -5,
    "TOOBIG": -7,
    "NOMEM": -12,
    "FAULT": -14,
    "BUSY": -16,
    "INVAL": -22,
    "LOOP": -40,
    "TLS": -71,
    "NOTSUP": -95,
    "TIMEOUT": -110,
    "CONNREFUSED": -111,
    "HOSTUNREACH": -113,
    "CERT": -129,
}


def test_committed_outputs_are_current():
    result = CliRunner().invoke(abi, ["check"])
    assert result.exit_code == 0, result.output


def test_check_fails_when_the_abi_changes(tmp_path):
    doc = yaml.safe_load(ABI_FILE.read_text())
    doc["imports"][0]["doc"] = "changed"
    changed = tmp_path / "abi.yaml"
    changed.write_text(yaml.safe_dump(doc))
    result = CliRunner().invoke(abi, ["check", "--abi-file", str(changed)])
    assert result.exit_code != 0
    assert "firmware/include/runtime/k32_app_abi.h" in result.output and "docs/abi.md" in result.output


def test_error_codes_keep_their_published_values():
    assert {e.name: e.value for e in load().errors} == PUBLISHED_CODES
    header = gen.app_header(load())
    for name, value in PUBLISHED_CODES.items():
        assert f"#define K32_ERR_{name} ({value})" in header


def test_required_imports_and_exports():
    model = load()
    names = {f.name for f in model.imports}
    assert {
        "k32_req_method",
        "k32_req_path",
        "k32_req_query",
        "k32_req_header",
        "k32_req_body",
        "k32_resp_status",
        "k32_resp_header",
        "k32_resp_write",
        "k32_resp_asset",
        "k32_env_get",
        "k32_log",
        "k32_time_ms",
        "k32_http_call",
        "k32_http_status",
        "k32_channel_publish",
        "k32_channel_subscribe",
    } <= names
    call = next(f for f in model.imports if f.name == "k32_http_call")
    assert [p.name for p in call.params] == [
        "method",
        "method_len",
        "url",
        "url_len",
        "headers",
        "headers_len",
        "body",
        "body_len",
        "resp",
        "resp_cap",
        "resp_len",
        "timeout_ms",
    ]
    assert call.capability == "SERVICE_CALL"
    assert {x.name for x in model.exports} >= {"k32_handle", "k32_event", "k32_main", "_start"}


def test_table_matches_the_abi(tmp_path):
    result = CliRunner().invoke(abi, ["table", "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    src = (tmp_path / "k32_abi_table.cpp").read_text()
    for f in load().imports:
        assert f'{{"{f.name}", "{f.sig}", &host_{f.name},' in src


@pytest.mark.parametrize(
    "text, message",
    [
        ("version: 1\n", "missing field 'import_module'"),
        ("- a\n", "top level must be a mapping"),
        (
            "version: 1\nimport_module: k32\nerrors: [{name: X, value: 3, doc: d}]\ncapabilities: []\nimports: []\nexports: []\n",
            "errors[0].value: error codes are negative",
        ),
        (
            "version: 1\nimport_module: k32\nerrors: []\ncapabilities: []\nexports: []\n"
            "imports: [{name: f, params: [{name: p, type: f32}], doc: d}]\n",
            "imports[0].params[0].type: unknown type 'f32'",
        ),
        (
            "version: 1\nimport_module: k32\nerrors: []\ncapabilities: []\nexports: []\n"
            "imports: [{name: f, params: [], capability: ROOT, doc: d}]\n",
            "imports[0].capability: 'ROOT' is not declared",
        ),
    ],
)
def test_bad_abi_files_get_one_line_errors(tmp_path, text, message):
    p = tmp_path / "abi.yaml"
    p.write_text(textwrap.dedent(text))
    with pytest.raises(AbiError) as e:
        load(p)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_unparsable_yaml(tmp_path):
    p = tmp_path / "abi.yaml"
    p.write_text("a: [\n")
    with pytest.raises(AbiError, match="not valid YAML"):
        load(p)
    with pytest.raises(AbiError, match="cannot read"):
        load(tmp_path / "missing.yaml")
    with pytest.raises(AbiError):
        parse({"version": "one"})
