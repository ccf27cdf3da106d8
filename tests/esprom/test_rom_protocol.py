"""The ROM double answers the documented serial protocol, including its error statuses."""

import hashlib
import struct
import zlib

import pytest

from k32.testing.esprom import slip
from k32.testing.esprom.rom import CMD, ERR_CRC, ERR_DEFLATE, ERR_FAILED, ERR_INVALID, RomDouble

SYNC = b"\x07\x07\x12\x20" + b"\x55" * 32


def checksum(data):
    c = 0xEF
    for b in data:
        c ^= b
    return c


def request(rom, name, data=b"", chk=0):
    frame = struct.pack("<BBHI", 0, CMD[name], len(data), chk) + data
    replies = []
    dec = slip.Decoder()
    for raw in rom.handle_frame(frame):
        replies += dec.feed(raw)
    return replies


def decode(reply):
    direction, op, size, value = struct.unpack("<BBHI", reply[:8])
    body = reply[8 : 8 + size]
    return direction, op, value, body[:-4], body[-4:]


@pytest.fixture(params=["esp32", "esp32s3"])
def rom(request, tmp_path):
    r = RomDouble(request.param, str(tmp_path / "flash.img"), 4 * 1024 * 1024)
    yield r
    r.close()


def test_slip_roundtrip_escapes():
    payload = bytes([0xC0, 0xDB, 1, 0xC0, 0xDD])
    dec = slip.Decoder()
    assert dec.feed(b"noise" + slip.encode(payload) + slip.encode(b"x")) == [payload, b"x"]


def test_sync_answers_eight_times_nonzero(rom):
    replies = request(rom, "SYNC", SYNC)
    assert len(replies) == 8
    d, op, value, body, status = decode(replies[0])
    assert (d, op) == (1, CMD["SYNC"]) and value != 0 and status[:2] == b"\0\0"
    _, _, _, _, status = decode(request(rom, "SYNC", b"\x07" * 36)[0])
    assert status[:2] == bytes([1, ERR_INVALID])


def test_chip_identification(rom):
    _, _, magic, _, _ = decode(request(rom, "READ_REG", struct.pack("<I", 0x40001000))[0])
    _, _, _, body, status = decode(request(rom, "GET_SECURITY_INFO")[0])
    if rom.chip == "esp32":
        assert magic == 0x00F01D83
        assert status[:2] == bytes([1, ERR_INVALID])  # the ESP32 ROM lacks the command
    else:
        assert status[:2] == b"\0\0" and struct.unpack("<IBBBBBBBBII", body)[9] == 9


def test_flash_write_deflate_and_md5(rom):
    payload = bytes(range(256)) * 20
    comp = zlib.compress(payload, 9)
    words = 4 if rom.chip == "esp32" else 5
    begin = struct.pack("<IIII", 0x2000, 1, 0x4000, 0x10000) + (b"\0" * 4 if words == 5 else b"")
    assert decode(request(rom, "FLASH_DEFL_BEGIN", begin)[0])[4][:2] == b"\0\0"
    blk = struct.pack("<IIII", len(comp), 0, 0, 0) + comp
    assert decode(request(rom, "FLASH_DEFL_DATA", blk, checksum(comp))[0])[4][:2] == b"\0\0"
    _, _, _, body, status = decode(request(rom, "SPI_FLASH_MD5", struct.pack("<IIII", 0x10000, len(payload), 0, 0))[0])
    assert status[:2] == b"\0\0" and body.decode() == hashlib.md5(payload).hexdigest()
    assert open(rom.image_path, "rb").read()[0x10000 : 0x10000 + len(payload)] == payload


def test_errors(rom):
    words = 4 if rom.chip == "esp32" else 5
    begin = struct.pack("<IIII", 0x1000, 2, 0x400, 0x8000) + (b"\0" * 4 if words == 5 else b"")
    assert decode(request(rom, "FLASH_BEGIN", begin[:12])[0])[4][:2] == bytes([1, ERR_INVALID])
    assert decode(request(rom, "FLASH_BEGIN", begin)[0])[4][:2] == b"\0\0"
    data = b"\xaa" * 0x400
    blk = struct.pack("<IIII", len(data), 0, 0, 0) + data
    assert decode(request(rom, "FLASH_DATA", blk, checksum(data) ^ 1)[0])[4][:2] == bytes([1, ERR_CRC])
    wrong_seq = struct.pack("<IIII", len(data), 1, 0, 0) + data
    assert decode(request(rom, "FLASH_DATA", wrong_seq, checksum(data))[0])[4][:2] == bytes([1, ERR_FAILED])
    assert decode(request(rom, "FLASH_DATA", blk, checksum(data))[0])[4][:2] == b"\0\0"
    off_end = struct.pack("<IIII", 0x1000, 1, 0x400, 4 * 1024 * 1024) + (b"\0" * 4 if words == 5 else b"")
    assert decode(request(rom, "FLASH_BEGIN", off_end)[0])[4][:2] == bytes([1, ERR_FAILED])
    request(rom, "FLASH_DEFL_BEGIN", begin)
    junk = b"not zlib"
    bad = struct.pack("<IIII", len(junk), 0, 0, 0) + junk
    assert decode(request(rom, "FLASH_DEFL_DATA", bad, checksum(junk))[0])[4][:2] == bytes([1, ERR_DEFLATE])
    assert decode(request(rom, "MEM_BEGIN", b"\0" * 16)[0])[4][:2] == bytes([1, ERR_FAILED])
