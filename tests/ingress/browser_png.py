"""A minimal PNG reader (8-bit RGB/RGBA, non-interlaced: what Chromium's screenshots are) so
the browser test can look at pixels without Pillow."""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # colour type -> samples per pixel


class PngError(ValueError):
    pass


class Png:
    def __init__(self, width: int, height: int, channels: int, rows: list[bytes]):
        self.width, self.height, self.channels, self.rows = width, height, channels, rows

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise PngError(f"pixel ({x}, {y}) outside {self.width}x{self.height}")
        i = x * self.channels
        return tuple(self.rows[y][i : i + 3])

    def distinct_colours(self, limit: int = 1 << 16) -> int:
        seen = set()
        for row in self.rows:
            for i in range(0, len(row), self.channels):
                seen.add(row[i : i + 3])
                if len(seen) >= limit:
                    return len(seen)
        return len(seen)


def decode(data: bytes) -> Png:
    if data[:8] != SIGNATURE:
        raise PngError("not a PNG: bad signature")
    pos, header, idat = 8, None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        crc = data[pos + 8 + length : pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise PngError(f"chunk {kind!r} at byte {pos} is truncated")
        if zlib.crc32(kind + body) != int.from_bytes(crc, "big"):
            raise PngError(f"chunk {kind!r} at byte {pos}: CRC mismatch")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None or not idat:
        raise PngError("PNG without IHDR or IDAT")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace:
        raise PngError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    channels = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise PngError(f"image data is {len(raw)} bytes, expected {height * (stride + 1)}")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        rows.append(bytes(prev := _unfilter(raw[start], raw[start + 1 : start + 1 + stride], prev, channels)))
    return Png(width, height, channels, rows)


def _unfilter(kind: int, line: bytes, prev: bytearray, bpp: int) -> bytearray:
    out = bytearray(line)
    if kind == 0:
        return out
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        if kind == 1:
            out[i] = (out[i] + a) & 0xFF
        elif kind == 2:
            out[i] = (out[i] + b) & 0xFF
        elif kind == 3:
            out[i] = (out[i] + ((a + b) >> 1)) & 0xFF
        elif kind == 4:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        else:
            raise PngError(f"unknown PNG filter type {kind}")
    return out
