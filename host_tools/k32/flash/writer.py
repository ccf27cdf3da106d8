"""Writing a flash plan with esptool's Python API: connect, check the chip, write every region
compressed and verified, reset."""

from __future__ import annotations

import os

from k32.boards import Board

from .plan import FlashError, Region

ROM_BAUD = 115200


def write(
    board: Board, regions: list[Region], port: str, baud: int, stub: bool, erase: bool, connect_attempts: int = 3
) -> None:
    """Connect, check the chip, write every region compressed and verified, reset."""
    import esptool
    import serial
    from esptool.util import FatalError

    if erase and not stub:
        raise FlashError("--erase needs the flasher stub (the ROM cannot erase the whole chip); drop --no-stub")
    if "://" not in port and not os.path.exists(port):
        raise FlashError(f"serial port {port} does not exist")
    esp = None
    try:
        esp = esptool.detect_chip(port, ROM_BAUD, "default-reset", connect_attempts=connect_attempts)
        want = esptool.CHIP_DEFS[board.chip].CHIP_NAME
        if esp.CHIP_NAME != want:
            raise FlashError(f"{port} has an {esp.CHIP_NAME}, board {board.name!r} needs an {want}; wrong --board?")
        if stub:
            esp = esptool.run_stub(esp)
        if baud != ROM_BAUD:
            esp.change_baud(baud)
        esptool.attach_flash(esp)
        if erase:
            esptool.erase_flash(esp)
        # Written and then read back with the same files and the same flash geometry.
        files = [(r.offset, str(r.path)) for r in regions]
        geometry = {"flash_mode": board.flash_mode, "flash_freq": board.flash_freq, "flash_size": board.flash_size}
        esptool.write_flash(esp, files, compress=True, **geometry)
        esptool.verify_flash(esp, files, **geometry)
        esptool.reset_chip(esp, "hard-reset")
    except serial.SerialException as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "busy" in msg.lower() or "lock" in msg.lower():
            raise FlashError(f"serial port {port} is busy (another program has it open): {msg}") from None
        raise FlashError(f"serial port {port}: {msg}") from None
    except FatalError as e:
        raise FlashError(f"esptool: {str(e).splitlines()[0]}") from None
    finally:
        if esp is not None and getattr(esp, "_port", None) is not None:
            try:
                esp._port.close()
            except Exception:
                pass
