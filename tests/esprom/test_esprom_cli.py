"""`python -m k32.testing.esprom` serves the double; esptool's own flash-id reads the emulated JEDEC
id through the SPI registers and detects the flash size."""

import signal
import subprocess
import sys

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("chip,size", [("esp32", "4MB"), ("esp32s3", "16MB")])
def test_flash_id_through_the_cli_server(tmp_path, chip, size):
    srv = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "k32.testing.esprom",
            "--chip",
            chip,
            "--flash-size",
            size,
            "--image",
            str(tmp_path / "f.bin"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = srv.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        r = subprocess.run(
            [sys.executable, "-m", "esptool", "--port", url, "--no-stub", "flash-id"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-1000:]
        assert f"Detected flash size: {size}" in r.stdout
        assert ("ESP32-S3" if chip == "esp32s3" else "ESP32") in r.stdout
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.wait(timeout=10)
    assert (tmp_path / "f.bin").stat().st_size == int(size[:-2]) * 1024 * 1024


def test_bad_arguments(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "k32.testing.esprom", "--flash-size", "huge", "--image", str(tmp_path / "f")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "flash size 'huge'" in r.stderr
