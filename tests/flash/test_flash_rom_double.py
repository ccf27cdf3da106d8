"""`k32 flash` drives the real esptool against the ROM double; the flash image then holds
every file of the plan byte-for-byte at its offset."""

import pytest
from flash_helpers import flash_args, k32

from k32.boards import load_board
from k32.boards.partition_table import parse_binary


@pytest.mark.slow
@pytest.mark.parametrize("board_name,chip,size", [("s3", "esp32s3", "8MB"), ("esp32", "esp32", "4MB")])
def test_flash_through_esptool_matches_bundle(board_name, chip, size, board_files, rom):
    files = board_files(board_name)
    bundle, app, boot = files
    double, url = rom(chip, size)
    r = k32(*flash_args(board_name, files, "--port", url, "--no-stub"))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Hash of data verified" in r.stdout
    board = load_board(board_name)
    image = open(double.image_path, "rb").read()
    rows = {row[0]: row for row in parse_binary((bundle / "partition-table.bin").read_bytes())}
    expect = {
        board.bootloader_offset: boot.read_bytes(),
        board.partition_table_offset: (bundle / "partition-table.bin").read_bytes(),
        rows["factory"][3]: app.read_bytes(),
        rows["storage"][3]: (bundle / "data.littlefs.bin").read_bytes(),
    }
    for offset, data in expect.items():
        assert image[offset : offset + len(data)] == data, f"mismatch at {offset:#x}"
    names = [c for c, _ in double.log]
    assert "FLASH_DEFL_DATA" in names  # compressed
    assert "SPI_FLASH_MD5" in names  # verified
    assert "CHANGE_BAUDRATE" in names  # default --baud 460800


@pytest.mark.slow
def test_corrupt_app_is_refused_before_connecting(board_files, rom, tmp_path):
    bundle, app, boot = board_files("s3")
    data = bytearray(app.read_bytes())
    data[200] ^= 0xFF
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(data))
    double, url = rom("esp32s3")
    before = open(double.image_path, "rb").read()
    r = k32(*flash_args("s3", (bundle, bad, boot), "--port", url, "--no-stub"))
    assert r.returncode != 0
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "corrupt image" in err[0] and "bad.bin" in err[0], r.stderr
    assert double.log == []
    assert open(double.image_path, "rb").read() == before
    not_esp = tmp_path / "notes.txt"
    not_esp.write_text("hello")
    r = k32("flash", "--board", "s3", "--no-build", "--app", str(not_esp), "--data-bundle", str(bundle), "--dry-run")
    assert r.returncode != 0 and "not an ESP firmware image" in r.stderr


@pytest.mark.slow
def test_wrong_chip_on_port(board_files, rom):
    files = board_files("esp32")
    double, url = rom("esp32s3")
    r = k32(*flash_args("esp32", files, "--port", url, "--no-stub"))
    assert r.returncode != 0
    assert "has an ESP32-S3, board 'esp32' needs an ESP32" in r.stderr
    assert not any(c.startswith("FLASH") for c, _ in double.log)


@pytest.mark.slow
def test_node_that_never_answers(board_files):
    import socket
    import threading

    files = board_files("s3")
    srv = socket.create_server(("127.0.0.1", 0))
    conns = []
    threading.Thread(target=lambda: conns.append(srv.accept()), daemon=True).start()
    r = k32(*flash_args("s3", files, "--port", f"socket://127.0.0.1:{srv.getsockname()[1]}", "--no-stub"), timeout=120)
    srv.close()
    assert r.returncode != 0
    assert r.stderr.strip().splitlines()[-1].startswith("Error: esptool: Failed to connect"), r.stderr


@pytest.mark.slow
def test_missing_and_busy_port(board_files, rom):
    import serial

    from k32.testing.esprom.server import PtyServer

    files = board_files("s3")
    r = k32(*flash_args("s3", files, "--app", "/nonexistent.bin", "--dry-run"))  # the last --app counts
    assert r.returncode != 0 and "--app /nonexistent.bin: no such file" in r.stderr
    r = k32(*flash_args("s3", files, "--no-stub", "--port", "/dev/ttyK32-nope"))
    assert r.returncode != 0 and "serial port /dev/ttyK32-nope does not exist" in r.stderr
    double, _url = rom("esp32s3")
    pty = PtyServer(double).start()
    holder = serial.Serial(pty.path, exclusive=True)
    try:
        r = k32(*flash_args("s3", files, "--no-stub", "--port", pty.path))
    finally:
        holder.close()
        pty.stop()
    assert r.returncode != 0 and "busy" in r.stderr, r.stderr
    assert not any(c.startswith("FLASH") for c, _ in double.log)


@pytest.mark.slow
def test_flash_over_a_pty(board_files, rom):
    from k32.testing.esprom.server import PtyServer

    files = board_files("s3")
    app = files[1]
    double, _url = rom("esp32s3")
    pty = PtyServer(double).start()
    try:
        r = k32(*flash_args("s3", files, "--port", pty.path, "--no-stub", "--baud", "115200"))
    finally:
        pty.stop()
    assert r.returncode == 0, r.stdout[-1500:] + r.stderr[-1500:]
    image = open(double.image_path, "rb").read()
    assert image[0x10000 : 0x10000 + app.stat().st_size] == app.read_bytes()


@pytest.mark.slow
def test_erase_without_stub_is_refused(board_files, rom):
    files = board_files("s3")
    double, url = rom("esp32s3")
    r = k32(*flash_args("s3", files, "--port", url, "--no-stub", "--erase"))
    assert r.returncode != 0 and "--erase needs the flasher stub" in r.stderr
    assert double.log == []
