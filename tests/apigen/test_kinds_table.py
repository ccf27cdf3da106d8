"""k32.apigen.kinds reads the served kinds from the firmware's kinds table; a row it cannot
read fails the generation with the file and line instead of serving a wrong list."""

import pytest

from k32.apigen.kinds import KINDS_TABLE, KindsTableError, read_kinds_table

ROW = 'K32_KIND("{g}", "v1", "widgets", "Widget", "widget", {ns}, false, "wd", "", "{sub}", kWidgetKind)\n'


def test_the_table_is_the_firmwares():
    assert KINDS_TABLE.is_file()
    kinds = read_kinds_table()
    assert [k.kind for k in kinds][:3] == ["Namespace", "Node", "Pod"]


def test_a_row_becomes_a_kind_with_its_upstream_definition(tmp_path):
    f = tmp_path / "kinds.def"
    f.write_text(
        "// comment K32_KIND(not, a, row)\n"
        + ROW.format(g="", ns="true", sub="status")
        + ROW.format(g="apps", ns="false", sub="")
    )
    core, apps = read_kinds_table(f)
    assert (core.key, core.definition, core.namespaced, core.status) == (
        "v1/Widget",
        "io.k8s.api.core.v1.Widget",
        True,
        True,
    )
    assert (apps.key, apps.definition, apps.namespaced, apps.status, apps.gv_path) == (
        "apps/v1/Widget",
        "io.k8s.api.apps.v1.Widget",
        False,
        False,
        "apis/apps/v1",
    )


@pytest.mark.parametrize(
    "row,message",
    [
        ('K32_KIND("", "v1", "widgets", "Widget", "widget", true, false, "", "", "")\n', "10 fields, expected 11"),
        (ROW.format(g="", ns="yes", sub=""), "namespaced must be true or false"),
        ('K32_KIND("", "v1", widgets", "Widget")\n', "cannot read the row"),
    ],
)
def test_a_malformed_row_names_the_line(tmp_path, row, message):
    f = tmp_path / "kinds.def"
    f.write_text("// the table\n" + row)
    with pytest.raises(KindsTableError, match=message) as e:
        read_kinds_table(f)
    assert "kinds.def:2" in str(e.value)


def test_an_empty_table_is_an_error(tmp_path):
    f = tmp_path / "kinds.def"
    f.write_text("// nothing\n")
    with pytest.raises(KindsTableError, match="no K32_KIND rows"):
        read_kinds_table(f)
