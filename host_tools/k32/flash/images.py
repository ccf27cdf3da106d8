"""Checks of the binaries `k32 flash` writes, before anything touches the board."""

from __future__ import annotations

from esptool.bin_image import LoadFirmwareImage
from esptool.targets import CHIP_DEFS
from esptool.util import FatalError


class ImageError(RuntimeError):
    pass


def check_firmware_image(path, data: bytes, chip: str, what: str) -> None:
    """An ESP app or bootloader image for `chip` whose checksum and SHA-256 are intact."""
    if len(data) < 24 or data[0] != 0xE9:
        raise ImageError(f"{what} {path}: not an ESP firmware image (magic byte {data[:1].hex() or 'none'})")
    try:
        img = LoadFirmwareImage(chip, data)
    except (FatalError, ValueError, IndexError, OSError) as e:
        raise ImageError(f"{what} {path}: corrupt image: {str(e).splitlines()[0]}") from None
    expect = CHIP_DEFS[chip].IMAGE_CHIP_ID
    if getattr(img, "chip_id", expect) != expect:
        raise ImageError(
            f"{what} {path}: built for chip id {img.chip_id}, the board is {CHIP_DEFS[chip].CHIP_NAME} (id {expect})"
        )
    if img.checksum != img.calculate_checksum():
        raise ImageError(f"{what} {path}: corrupt image: checksum mismatch")
    if getattr(img, "append_digest", False) and img.stored_digest != img.calc_digest:
        raise ImageError(f"{what} {path}: corrupt image: SHA-256 digest mismatch")
