"""Serial-port auto-detection: the USB devices ESP32 boards show up as."""

from __future__ import annotations

from serial.tools import list_ports

# USB vendor IDs of ESP32 boards: Espressif's own USB (S3 USB-Serial/JTAG, USB-OTG) and the
# USB-UART bridges dev boards carry.
BOARD_USB_VIDS = {
    0x303A: "Espressif USB",
    0x10C4: "Silicon Labs CP210x",
    0x1A86: "WCH CH340/CH9102",
    0x0403: "FTDI",
}


class PortError(RuntimeError):
    pass


def candidates() -> list:
    return sorted((p for p in list_ports.comports() if p.vid in BOARD_USB_VIDS), key=lambda p: p.device)


def describe(p) -> str:
    return f"{p.device} ({BOARD_USB_VIDS.get(p.vid, 'USB')} {p.vid:04x}:{p.pid:04x})"


def auto_detect() -> str:
    """The one board port, or a PortError naming what was found."""
    found = candidates()
    if not found:
        raise PortError(
            "no ESP32 board found on USB (looked for vendors "
            + ", ".join(f"{v:04x}" for v in sorted(BOARD_USB_VIDS))
            + "); plug one in or pass --port"
        )
    if len(found) > 1:
        raise PortError("several boards found: " + ", ".join(describe(p) for p in found) + "; choose one with --port")
    return found[0].device
