"""A test double of the ESP32 / ESP32-S3 ROM serial bootloader, writing into a flash-image
file. It implements the documented command set (Espressif "Serial Protocol"): SYNC,
READ_REG/WRITE_REG (chip detection, eFuses, SPI flash commands), SPI_ATTACH,
SPI_SET_PARAMS, FLASH_BEGIN/DATA/END, FLASH_DEFL_BEGIN/DATA/END, SPI_FLASH_MD5,
CHANGE_BAUDRATE, GET_SECURITY_INFO (S3 only, as in the real ROMs). RAM download (the
flasher stub) is not emulated: drive it with esptool's --no-stub."""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from dataclasses import dataclass, field

from esptool.loader import ESPLoader
from esptool.targets import CHIP_DEFS

from . import slip

CMD = {
    name: ESPLoader.ESP_CMDS[name]
    for name in (
        "FLASH_BEGIN",
        "FLASH_DATA",
        "FLASH_END",
        "MEM_BEGIN",
        "MEM_END",
        "MEM_DATA",
        "SYNC",
        "WRITE_REG",
        "READ_REG",
        "SPI_SET_PARAMS",
        "SPI_ATTACH",
        "CHANGE_BAUDRATE",
        "FLASH_DEFL_BEGIN",
        "FLASH_DEFL_DATA",
        "FLASH_DEFL_END",
        "SPI_FLASH_MD5",
        "GET_SECURITY_INFO",
    )
}
# ROM status codes (second status byte).
ERR_INVALID, ERR_FAILED, ERR_CRC, ERR_FLASH_WRITE, ERR_DEFLATE = 0x05, 0x06, 0x07, 0x08, 0x0B
CHECKSUM_SEED = 0xEF
JEDEC_MANUFACTURER, JEDEC_TYPE = 0xEF, 0x40  # a Winbond W25Q part
SPI_CMD_USR = 1 << 18
SPIFLASH_RDID = 0x9F
SYNC_REPLIES = 8
XTAL_HZ = 40_000_000
ROM_BAUD = ESPLoader.ESP_ROM_BAUD


@dataclass
class _Write:
    offset: int
    block_size: int
    blocks: int
    next_seq: int = 0
    pos: int = 0
    inflater: object = None


@dataclass
class RomDouble:
    """chip: esptool chip name ("esp32", "esp32s3"); image_path: the flash contents."""

    chip: str
    image_path: str
    flash_size: int
    regs: dict = field(default_factory=dict)
    write: _Write | None = None
    log: list = field(default_factory=list)  # (command name, detail) for tests

    def __post_init__(self):
        if self.chip not in ("esp32", "esp32s3"):
            raise ValueError(f"ROM double: chip {self.chip!r} not emulated (esp32, esp32s3)")
        self.cls = CHIP_DEFS[self.chip]
        # esptool derives the crystal from the UART divider at the ROM's 115200 baud.
        divider = getattr(self.cls, "XTAL_CLK_DIVIDER", 1)
        self.regs.setdefault(self.cls.UART_CLKDIV_REG, round(XTAL_HZ / divider / ROM_BAUD))
        if not os.path.exists(self.image_path) or os.path.getsize(self.image_path) != self.flash_size:
            with open(self.image_path, "wb") as f:
                f.write(b"\xff" * self.flash_size)
        self._fd = os.open(self.image_path, os.O_RDWR)

    def close(self):
        os.close(self._fd)

    # ---- framing ----
    def handle_frame(self, frame: bytes) -> list[bytes]:
        """One request frame in, the SLIP-encoded response frames out."""
        if len(frame) < 8 or frame[0] != 0x00:
            return []
        _, op, size, chk = struct.unpack("<BBHI", frame[:8])
        data = frame[8 : 8 + size]
        names = {v: k for k, v in CMD.items()}
        name = names.get(op)
        self.log.append((name or f"0x{op:02x}", len(data)))
        if name is None or (name == "GET_SECURITY_INFO" and self.cls.USES_MAGIC_VALUE):
            return [self._reply(op, 0, b"", ERR_INVALID)]
        value, body, err = getattr(self, "_" + name.lower())(data, chk)
        count = SYNC_REPLIES if name == "SYNC" else 1
        return [self._reply(op, value, body, err)] * count

    @staticmethod
    def _reply(op, value, body, err) -> bytes:
        status = bytes([1 if err else 0, err or 0, 0, 0])  # ROM: 4 status bytes
        payload = body + status
        return slip.encode(struct.pack("<BBHI", 1, op, len(payload), value) + payload)

    # ---- commands: each returns (value, body, error) ----
    def _sync(self, data, chk):
        if data != b"\x07\x07\x12\x20" + b"\x55" * 32:
            return 0, b"", ERR_INVALID
        return 0x20120707, b"", 0  # ROMs answer non-zero

    def _read_reg(self, data, chk):
        (addr,) = struct.unpack("<I", data[:4])
        if addr == ESPLoader.CHIP_DETECT_MAGIC_REG_ADDR:
            return (self.cls.MAGIC_VALUE if self.cls.USES_MAGIC_VALUE else 0), b"", 0
        if addr == self.cls.SPI_REG_BASE:  # SPI_CMD_REG: command done
            return 0, b"", 0
        return self.regs.get(addr, 0), b"", 0

    def _write_reg(self, data, chk):
        for i in range(0, len(data) - 15, 16):
            addr, value, mask, _delay = struct.unpack("<IIII", data[i : i + 16])
            old = self.regs.get(addr, 0)
            self.regs[addr] = (old & ~mask) | (value & mask)
            if addr == self.cls.SPI_REG_BASE and value & SPI_CMD_USR:
                self._spi_command()
        return 0, b"", 0

    def _spi_command(self):
        usr2 = self.regs.get(self.cls.SPI_REG_BASE + self.cls.SPI_USR2_OFFS, 0)
        w0 = self.cls.SPI_REG_BASE + self.cls.SPI_W0_OFFS
        if usr2 & 0xFFFF == SPIFLASH_RDID:
            capacity = self.flash_size.bit_length() - 1
            self.regs[w0] = JEDEC_MANUFACTURER | (JEDEC_TYPE << 8) | (capacity << 16)
        else:
            self.regs[w0] = 0  # status registers: idle, no protection

    def _spi_attach(self, data, chk):
        return 0, b"", 0

    def _spi_set_params(self, data, chk):
        if len(data) != 24:
            return 0, b"", ERR_INVALID
        _id, total, _block, _sector, _page, _mask = struct.unpack("<IIIIII", data)
        if total > self.flash_size:
            return 0, b"", ERR_FAILED
        return 0, b"", 0

    def _change_baudrate(self, data, chk):
        return 0, b"", 0

    def _get_security_info(self, data, chk):
        body = struct.pack("<IBBBBBBBBII", 0, 0, 0, 0, 0, 0, 0, 0, 0, self.cls.IMAGE_CHIP_ID, 0)
        return 0, body, 0

    def _begin(self, data, deflate):
        want = 16 if self.chip == "esp32" else 20  # S3 ROM takes the "encrypted" word
        if len(data) != want:
            return 0, b"", ERR_INVALID
        erase, blocks, block_size, offset = struct.unpack("<IIII", data[:16])
        if offset + erase > self.flash_size or offset % 0x1000:
            return 0, b"", ERR_FAILED
        os.pwrite(self._fd, b"\xff" * erase, offset)  # the ROM erases up front
        self.write = _Write(offset, block_size, blocks, inflater=zlib.decompressobj() if deflate else None)
        return 0, b"", 0

    def _flash_begin(self, data, chk):
        return self._begin(data, False)

    def _flash_defl_begin(self, data, chk):
        return self._begin(data, True)

    def _data(self, data, chk, deflate):
        w = self.write
        if w is None or (w.inflater is not None) != deflate:
            return 0, b"", ERR_FAILED
        size, seq, _, _ = struct.unpack("<IIII", data[:16])
        block = data[16 : 16 + size]
        if len(block) != size:
            return 0, b"", ERR_INVALID
        if ESPLoader.checksum(block, CHECKSUM_SEED) != chk & 0xFF:
            return 0, b"", ERR_CRC
        if seq != w.next_seq:
            return 0, b"", ERR_FAILED
        if deflate:
            try:
                block = w.inflater.decompress(block)
            except zlib.error:
                return 0, b"", ERR_DEFLATE
        if w.offset + w.pos + len(block) > self.flash_size:
            return 0, b"", ERR_FLASH_WRITE
        os.pwrite(self._fd, block, w.offset + w.pos)
        w.pos += len(block)
        w.next_seq += 1
        return 0, b"", 0

    def _flash_data(self, data, chk):
        return self._data(data, chk, False)

    def _flash_defl_data(self, data, chk):
        return self._data(data, chk, True)

    def _flash_end(self, data, chk):
        self.write = None
        return 0, b"", 0

    _flash_defl_end = _flash_end

    def _spi_flash_md5(self, data, chk):
        addr, size, _, _ = struct.unpack("<IIII", data[:16])
        if addr + size > self.flash_size:
            return 0, b"", ERR_FAILED
        digest = hashlib.md5(os.pread(self._fd, size, addr)).hexdigest().encode("ascii")
        return 0, digest, 0  # ROM answers 32 hex characters

    def _mem_begin(self, data, chk):  # no RAM: the stub cannot run
        return 0, b"", ERR_FAILED

    _mem_data = _mem_end = _mem_begin
