"""The ESP-IDF partition table: binary format exactly as gen_esp32part.py writes it
(32-byte entries, an MD5 entry, 0xFF padding to 0xC00), and the CSV PlatformIO reads."""

from __future__ import annotations

import hashlib
import struct

TYPES = {"app": 0x00, "data": 0x01}
SUBTYPES = {
    "app": {"factory": 0x00, **{f"ota_{i}": 0x10 + i for i in range(16)}, "test": 0x20},
    "data": {
        "ota": 0x00,
        "phy": 0x01,
        "nvs": 0x02,
        "coredump": 0x03,
        "nvs_keys": 0x04,
        "efuse": 0x05,
        "undefined": 0x06,
        "esphttpd": 0x80,
        "fat": 0x81,
        "spiffs": 0x82,
        "littlefs": 0x83,
    },
}
ENTRY_MAGIC = b"\xaa\x50"
MD5_ENTRY_BEGIN = b"\xeb\xeb" + b"\xff" * 14
TABLE_LENGTH = 0xC00  # ESP-IDF MAX_PARTITION_LENGTH
ENTRY = struct.Struct("<2sBBLL16sL")


def to_binary(partitions) -> bytes:
    out = b""
    for p in partitions:
        out += ENTRY.pack(
            ENTRY_MAGIC, TYPES[p.type], SUBTYPES[p.type][p.subtype], p.offset, p.size, p.name.encode("ascii"), 0
        )
    out += MD5_ENTRY_BEGIN + hashlib.md5(out).digest()
    if len(out) > TABLE_LENGTH:
        raise ValueError(f"partition table has {len(partitions)} entries; too many for {TABLE_LENGTH:#x} bytes")
    return out + b"\xff" * (TABLE_LENGTH - len(out))


def parse_binary(data: bytes) -> list[tuple]:
    """(name, type, subtype, offset, size) per entry; checks the MD5 entry (used by tests
    and by `k32 flash` to find offsets in a table it did not build)."""
    entries, pos = [], 0
    while pos + 32 <= len(data):
        chunk = data[pos : pos + 32]
        if chunk[:2] == ENTRY_MAGIC:
            _, t, s, off, size, name, _flags = ENTRY.unpack(chunk)
            entries.append((name.rstrip(b"\0").decode("ascii", "replace"), t, s, off, size))
        elif chunk[:16] == MD5_ENTRY_BEGIN:
            if hashlib.md5(data[:pos]).digest() != chunk[16:]:
                raise ValueError("partition table MD5 entry does not match its entries")
            return entries
        elif chunk == b"\xff" * 32:
            break
        else:
            raise ValueError(f"partition table: bad entry magic at byte {pos}")
        pos += 32
    raise ValueError("partition table has no MD5 entry")


def to_csv(partitions) -> str:
    lines = ["# Name, Type, SubType, Offset, Size, Flags  (generated from boards/; do not edit)"]
    for p in partitions:
        lines.append(f"{p.name}, {p.type}, {p.subtype}, {p.offset:#x}, {p.size:#x},")
    return "\n".join(lines) + "\n"
