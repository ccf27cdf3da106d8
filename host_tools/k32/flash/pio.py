"""Building the app with PlatformIO (firmware/platformio.ini, one env per board)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from k32 import REPO_ROOT

FIRMWARE_DIR = REPO_ROOT / "firmware"
NO_PIO_HINT = (
    "build the app where PlatformIO works and pass it with "
    "`k32 flash --no-build --app <firmware.bin> [--bootloader <bootloader.bin>]`"
)


class BuildError(RuntimeError):
    pass


def build_dir(env: str) -> Path:
    workspace = os.environ.get("PLATFORMIO_WORKSPACE_DIR")  # PlatformIO's own override
    return (Path(workspace) if workspace else FIRMWARE_DIR / ".pio") / "build" / env


def outputs(env: str) -> tuple[Path, Path]:
    """(app, bootloader) where `pio run` leaves them."""
    d = build_dir(env)
    return d / "firmware.bin", d / "bootloader.bin"


def find_pio() -> str | None:
    here = Path(sys.executable).parent
    for name in ("pio", "platformio"):
        if (here / name).exists():
            return str(here / name)
        found = shutil.which(name)
        if found:
            return found
    return None


def build(env: str, flash_size: str | None = None) -> tuple[Path, Path]:
    pio = find_pio()
    if pio is None:
        raise BuildError(f"PlatformIO is not installed (pip install platformio); or {NO_PIO_HINT}")
    cmd = [pio, "run", "-e", env, "-d", str(FIRMWARE_DIR)]
    if flash_size:
        # The profile's other flash size (s3: 16MB): pio_board.py passes it to ESP-IDF.
        cmd += ["-O", f"custom_k32_flash_size={flash_size}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        text = (proc.stdout + proc.stderr).lower()
        tail = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()][-1:] or ["no output"]
        if any(
            k in text
            for k in (
                "could not install",
                "platformmanager",
                "httpclienterror",
                "connection",
                "unknown platform",
                "unknownpackage",
                "internet",
                "resolve",
            )
        ):
            raise BuildError(
                f"PlatformIO could not install the espressif32 platform for env {env!r} "
                f"(needs internet: {tail[0].strip()}); {NO_PIO_HINT}"
            )
        raise BuildError(f"PlatformIO build of env {env!r} failed: {tail[0].strip()}; {NO_PIO_HINT}")
    app, boot = outputs(env)
    if not app.is_file():
        raise BuildError(f"PlatformIO finished but {app} is missing")
    return app, boot
