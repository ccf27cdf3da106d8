"""Board profiles load, validate, and become a k32_board.h that compiles (also as -m32)."""

import shutil
import subprocess

import pytest

from k32.boards import BoardError, available, gen_header, load_board, load_common
from k32.boards.partition_table import parse_binary, to_binary, to_csv


def test_every_board_loads():
    assert {"s3", "esp32", "c3", "sim"} <= set(available())
    for name in available():
        load_board(name)
    assert load_common()["CALL_CHAIN_MAX"] == 8


def test_spec_budgets():
    s3, esp32, sim = load_board("s3"), load_board("esp32"), load_board("sim")
    assert s3.budgets["ingress_stack"] == {"bytes": 16384, "region": "psram"}
    assert esp32.budgets["ingress_stack"] == {"bytes": 8192, "region": "internal"}
    assert esp32.budgets["events_stack"]["bytes"] == 6144
    assert s3.budgets["events_stack"]["bytes"] == 8192
    assert s3.budgets["inproc_call_stack"]["bytes"] == 16384
    assert sim.budgets["inproc_call_stack"]["bytes"] == 131072
    assert s3.budgets["tls_sessions"]["count"] == 2
    assert not esp32.psram and s3.psram


def test_c3_is_a_single_core_worker_without_psram():
    c3 = load_board("c3")
    assert (c3.chip, c3.psram, c3.cores, c3.flash_size) == ("esp32c3", False, 1, "4MB")
    assert all(b.get("region") in (None, "internal") for b in c3.budgets.values())
    assert c3.bootloader_offset == 0 and load_board("esp32").cores == load_board("s3").cores == 2
    text = gen_header.render("c3")
    assert "K32_CPU_CORES = 1u" in text and "K32_HAS_PSRAM = false" in text


def test_only_the_s3_and_the_simulator_run_a_control_plane():
    assert load_board("s3").roles == load_board("sim").roles == ("control-plane", "worker")
    assert load_board("esp32").roles == load_board("c3").roles == ("worker",)
    assert "K32_BOARD_CONTROL_PLANE = false" in gen_header.render("esp32")
    assert "K32_BOARD_CONTROL_PLANE = true" in gen_header.render("s3")


def test_s3_sixteen_mb_grows_data_partition():
    eight, sixteen = load_board("s3"), load_board("s3", "16MB")
    assert sixteen.partition("storage").size == eight.partition("storage").size + 8 * 1024 * 1024
    with pytest.raises(BoardError, match="not one of"):
        load_board("s3", "32MB")


def test_unknown_board_names_the_known_ones():
    with pytest.raises(BoardError, match="unknown board 'nope'.*c3, esp32, s3, sim"):
        load_board("nope")
    with pytest.raises(BoardError, match="invalid"):
        load_board("../etc/passwd")


def test_partition_table_binary_roundtrip_and_md5():
    b = load_board("esp32")
    blob = to_binary(b.partitions)
    assert len(blob) == 0xC00
    rows = parse_binary(blob)
    assert [r[0] for r in rows] == ["nvs", "phy_init", "factory", "storage"]
    assert rows[2][1:] == (0x00, 0x00, 0x10000, 0x1F0000)
    corrupt = bytearray(blob)
    corrupt[4] ^= 1
    with pytest.raises(ValueError, match="MD5"):
        parse_binary(bytes(corrupt))
    assert "factory, app, factory, 0x10000, 0x1f0000," in to_csv(b.partitions)


# (what esp32.yaml says, what the broken copy says instead, the error that names it); the first
# change is made once only, the others everywhere.
BAD_ESP32_PROFILES = [
    (
        "region: internal}",
        "region: psram}",
        1,
        r"esp32.yaml: budgets.ingress_stack.region: psram on a board without PSRAM",
    ),
    (
        "bootloader_offset: 0x1000",
        "bootloader_offset: 0x0",
        -1,
        r"bootloader_offset: the esp32 ROM loads the bootloader from 0x1000",
    ),
    ("chip: esp32\n", "chip: esp33\n", -1, r"chip: 'esp33' is not an esptool chip"),
    ("roles: [worker]", "roles: [boss]", -1, r"esp32.yaml: roles: must be a non-empty list"),
    ("offset: 0x200000", "offset: 0x100000", -1, r"partitions\[2\]|partitions\[3\]"),
    ("wasm_loop: flash", "wasm_loop: sram", -1, r"esp32.yaml: wasm_loop: must be one of iram, flash, got 'sram'"),
]


@pytest.mark.parametrize("good,bad,count,error", BAD_ESP32_PROFILES, ids=[c[1] for c in BAD_ESP32_PROFILES])
def test_bad_profile_is_named(tmp_path, monkeypatch, good, bad, count, error):
    import k32.boards.profile as boards

    (tmp_path / "common.yaml").write_text((boards.BOARDS_DIR / "common.yaml").read_text())
    text = (boards.BOARDS_DIR / "esp32.yaml").read_text()
    assert good in text
    (tmp_path / "esp32.yaml").write_text(text.replace(good, bad, count))
    monkeypatch.setattr(boards, "BOARDS_DIR", tmp_path)
    with pytest.raises(BoardError, match=error):
        boards.load_board("esp32")


@pytest.mark.parametrize("board", ["s3", "esp32", "sim"])
@pytest.mark.parametrize("bits", ["-m64", "-m32"])
def test_header_compiles_and_carries_the_profile(tmp_path, board, bits):
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("no g++")
    header = tmp_path / "k32_board.h"
    assert gen_header.main(["--board", board, "--out", str(header)]) == 0
    prof = load_board(board)
    src = tmp_path / "t.cpp"
    src.write_text(
        '#include "k32_board.h"\n'
        f"static_assert(K32_INGRESS_STACK_BYTES == {prof.budgets['ingress_stack']['bytes']}u, \"\");\n"
        f"static_assert(K32_INPROC_CALL_STACK_BYTES == {prof.budgets['inproc_call_stack']['bytes']}u, \"\");\n"
        f"static_assert(K32_HAS_PSRAM == {str(prof.psram).lower()}, \"\");\n"
        "static_assert(K32_CALL_CHAIN_MAX == 8u && K32_SERVICE_CACHE_MS == 3000u, \"\");\n"
        "int main() { return K32_BOARD_NAME[0] == 0; }\n"
    )
    r = subprocess.run(
        [cxx, "-std=c++17", bits, "-fsyntax-only", "-I", str(tmp_path), str(src)], capture_output=True, text=True
    )
    if r.returncode and bits == "-m32" and "bits/" in r.stderr:
        pytest.skip("no 32-bit C++ headers installed")
    assert r.returncode == 0, r.stderr


def test_header_rewrite_only_on_change(tmp_path):
    out = tmp_path / "k32_board.h"
    assert gen_header.main(["--board", "sim", "--out", str(out)]) == 0
    before = out.stat().st_mtime_ns
    assert gen_header.main(["--board", "sim", "--out", str(out)]) == 0
    assert out.stat().st_mtime_ns == before
    assert gen_header.main(["--board", "bogus", "--out", str(out)]) == 2
