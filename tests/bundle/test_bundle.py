"""`k32 bundle`: deterministic, complete, and its data image mounts with the content."""

import hashlib
import json

import pytest
from click.testing import CliRunner

from k32.boards import load_board
from k32.boards.partition_table import parse_binary
from k32.cli import main
from k32.data_bundle import BundleError, build, littlefs_image, load_manifest


def _images(root, crlf=False):
    nl = "\r\n" if crlf else "\n"
    (root / "web" / "echo").mkdir(parents=True)
    (root / "web" / "echo" / "index.html").write_bytes(f"<h1>echo</h1>{nl}<p>x</p>{nl}".encode())
    (root / "web" / "echo" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\r\n")
    (root / "echo").mkdir()
    (root / "echo" / "echo.wasm").write_bytes(b"\0asm\x01\0\0\0")
    return root


def _tree(d):
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_twice_in_different_directories_is_byte_identical(tmp_path):
    a = build("s3", tmp_path / "one" / "b", images_dir=_images(tmp_path / "img1"))
    b = build("s3", tmp_path / "two" / "elsewhere", images_dir=_images(tmp_path / "img2", crlf=True))
    assert a["digest"] == b["digest"]
    assert _tree(tmp_path / "one" / "b") == _tree(tmp_path / "two" / "elsewhere")


@pytest.mark.slow
def test_cli_twice_same_digest(tmp_path):
    r1 = CliRunner().invoke(main, ["bundle", "--board", "s3", "--out", str(tmp_path / "x"), "--json"])
    r2 = CliRunner().invoke(main, ["bundle", "--board", "s3", "--out", str(tmp_path / "y"), "--json"])
    assert r1.exit_code == 0, r1.output
    assert json.loads(r1.output)["digest"] == json.loads(r2.output)["digest"]


def test_manifest_lists_every_file_with_its_hash(tmp_path):
    out = tmp_path / "b"
    m = build("esp32", out, images_dir=_images(tmp_path / "img"))
    listed = {e["name"] for e in m["artifacts"]}
    on_disk = set(_tree(out)) - {"bundle.json"}
    assert listed == on_disk
    kinds = {e["kind"] for e in m["artifacts"]}
    assert {"openapi", "ca-bundle", "pod-image", "web", "partition-table", "data-image"} <= kinds
    for e in m["artifacts"]:
        assert hashlib.sha256((out / e["name"]).read_bytes()).hexdigest() == e["sha256"]
    assert load_manifest(out)["digest"] == m["digest"]
    (out / "ca" / "roots.pem").write_bytes(b"tampered")
    with pytest.raises(BundleError, match="ca/roots.pem.*sha256 mismatch"):
        load_manifest(out)


@pytest.mark.slow
def test_digest_changes_with_content(tmp_path):
    imgs = _images(tmp_path / "img")
    a = build("s3", tmp_path / "a", images_dir=imgs)
    (imgs / "web" / "echo" / "index.html").write_text("changed")
    b = build("s3", tmp_path / "b", images_dir=imgs)
    assert a["digest"] != b["digest"]


def test_partition_table_and_data_image(tmp_path):
    out = tmp_path / "b"
    m = build("s3", out, images_dir=_images(tmp_path / "img", crlf=True))
    board = load_board("s3")
    entries = {e["name"]: e for e in m["artifacts"]}
    assert entries["partition-table.bin"]["offset"] == 0x8000
    assert entries["data.littlefs.bin"]["offset"] == board.partition("storage").offset
    rows = parse_binary((out / "partition-table.bin").read_bytes())
    assert rows[-1][0] == "storage" and rows[-1][3] == 0x400000
    image = (out / "data.littlefs.bin").read_bytes()
    assert len(image) == board.partition("storage").size
    files = littlefs_image.read(image)
    assert files["web/echo/index.html"] == b"<h1>echo</h1>\n<p>x</p>\n"  # LF-normalised
    assert files["web/echo/logo.png"] == b"\x89PNG\r\n\x1a\n\r\n"  # binary untouched
    assert files["images/echo/echo.wasm"].startswith(b"\0asm")
    inner = json.loads(files["bundle.json"])
    assert inner["digest"] == m["digest"]
    assert files["ca/roots.pem"].count(b"BEGIN CERTIFICATE") > 50


def test_sim_bundle_has_no_flash_artifacts(tmp_path):
    m = build("sim", tmp_path / "s")
    names = {e["name"] for e in m["artifacts"]}
    assert "partition-table.bin" not in names and "data.littlefs.bin" not in names
    assert "ca/roots.pem" in names


def test_bad_inputs(tmp_path):
    imgs = _images(tmp_path / "img")
    (imgs / "echo" / "broken.wasm").write_bytes(b"ELF")
    with pytest.raises(BundleError, match="broken.wasm: not a WebAssembly module"):
        build("s3", tmp_path / "o", images_dir=imgs)
    (tmp_path / "notabundle").mkdir()
    (tmp_path / "notabundle" / "precious.txt").write_text("keep")
    with pytest.raises(BundleError, match="not a bundle directory"):
        build("sim", tmp_path / "notabundle")
    assert (tmp_path / "notabundle" / "precious.txt").read_text() == "keep"
    r = CliRunner().invoke(main, ["bundle", "--board", "nope"])
    assert r.exit_code != 0 and "unknown board 'nope'" in r.output
