"""The node runs the bundle built for its board: STATUS reports the digest `k32 bundle` gives."""

import pytest

from k32.data_bundle import build


def test_node_reports_its_bundle_digest(target, tmp_path_factory):
    reported = target.cp.command("STATUS").get("bundle", "")
    if not reported:
        pytest.skip("the control plane runs without a bundle (k32-node started without --bundle)")
    board = target.cp.command("STATUS").get("board") or ("sim" if target.kind == "sim" else "s3")
    expected = build(board, tmp_path_factory.mktemp("bundle") / board)["digest"]
    assert reported == expected
