"""SLIP framing as the ESP ROM serial bootloader uses it (RFC 1055 with 0xC0/0xDB)."""

END, ESC, ESC_END, ESC_ESC = 0xC0, 0xDB, 0xDC, 0xDD


def encode(payload: bytes) -> bytes:
    return bytes([END]) + payload.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc") + bytes([END])


class Decoder:
    """Feed bytes, get complete frames. Bytes outside a frame (boot noise) are dropped."""

    def __init__(self):
        self._buf = bytearray()
        self._in_frame = False
        self._escaped = False

    def feed(self, data: bytes) -> list[bytes]:
        frames = []
        for b in data:
            if not self._in_frame:
                if b == END:
                    self._in_frame, self._buf = True, bytearray()
                continue
            if self._escaped:
                self._escaped = False
                self._buf.append({ESC_END: END, ESC_ESC: ESC}.get(b, b))
            elif b == ESC:
                self._escaped = True
            elif b == END:
                if self._buf:  # "C0 C0" is an empty frame: stay in-frame
                    frames.append(bytes(self._buf))
                    self._in_frame = False
                self._buf = bytearray()
            else:
                self._buf.append(b)
        return frames
