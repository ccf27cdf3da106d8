"""The flash plan (--dry-run), port auto-detection, and the PlatformIO error path."""

import hashlib
import os
from types import SimpleNamespace

import pytest
from flash_helpers import k32

from k32.flash import ports
from k32.flash.pio import find_pio


@pytest.mark.slow
def test_dry_run_plan_s3(board_files):
    bundle, app, boot = board_files("s3")
    r = k32(
        "flash",
        "--board",
        "s3",
        "--dry-run",
        "--app",
        str(app),
        "--bootloader",
        str(boot),
        "--data-bundle",
        str(bundle),
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("board s3: chip esp32s3, flash 8MB dio 80m")
    table = {line.split()[0]: line.split() for line in lines[2:]}

    def sha(p):
        return hashlib.sha256(p.read_bytes()).hexdigest()

    assert table["0x00000000"][2] == sha(boot)
    assert table["0x00008000"][2] == sha(bundle / "partition-table.bin")
    assert table["0x00010000"][2] == sha(app)
    assert table["0x00400000"][2] == sha(bundle / "data.littlefs.bin")
    assert int(table["0x00400000"][1]) == 4 * 1024 * 1024


@pytest.mark.slow
def test_dry_run_without_binaries_and_16mb(tmp_path):
    r = k32("flash", "--board", "s3", "--flash-size", "16MB", "--dry-run", "--data-bundle", str(tmp_path / "b16"))
    assert r.returncode != 0 and "bundle.json" in r.stderr  # no bundle there yet
    r = k32("flash", "--board", "s3", "--flash-size", "16MB", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "flash 16MB" in r.stdout and "(not built yet)" in r.stdout
    data = [line for line in r.stdout.splitlines() if line.startswith("0x00400000")][0]
    assert int(data.split()[1]) == 12 * 1024 * 1024


@pytest.mark.slow
def test_bad_board_and_sim():
    r = k32("flash", "--board", "s4", "--dry-run")
    assert r.returncode != 0 and "unknown board 's4'; known boards: c3, esp32, s3, sim" in r.stderr
    r = k32("flash", "--board", "sim", "--dry-run")
    assert r.returncode != 0 and "simulator" in r.stderr


def _port(dev, vid, pid=0x1001):
    return SimpleNamespace(device=dev, vid=vid, pid=pid)


def test_port_auto_detection(monkeypatch):
    monkeypatch.setattr(ports.list_ports, "comports", lambda: [_port("/dev/ttyS0", None)])
    with pytest.raises(ports.PortError, match="no ESP32 board found on USB"):
        ports.auto_detect()
    monkeypatch.setattr(
        ports.list_ports, "comports", lambda: [_port("/dev/ttyS0", None), _port("/dev/ttyACM0", 0x303A)]
    )
    assert ports.auto_detect() == "/dev/ttyACM0"
    monkeypatch.setattr(
        ports.list_ports, "comports", lambda: [_port("/dev/ttyUSB1", 0x10C4, 0xEA60), _port("/dev/ttyACM0", 0x303A)]
    )
    with pytest.raises(
        ports.PortError,
        match=r"several boards found: /dev/ttyACM0 \(Espressif USB 303a:1001\), "
        r"/dev/ttyUSB1 \(Silicon Labs CP210x 10c4:ea60\); choose one with --port",
    ):
        ports.auto_detect()


@pytest.mark.skipif(find_pio() is None, reason="PlatformIO not installed (pip install platformio)")
def test_platformio_without_its_platform_says_how_to_pass_an_app(tmp_path):
    env = dict(
        os.environ, PLATFORMIO_CORE_DIR=str(tmp_path / "pio-core"), PLATFORMIO_WORKSPACE_DIR=str(tmp_path / "pio-work")
    )
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "k32.cli", "flash", "--board", "esp32"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert r.returncode != 0
    err = r.stderr.strip().splitlines()
    assert len(err) == 1, r.stderr
    assert "PlatformIO" in err[0] and "--no-build --app" in err[0]


@pytest.mark.slow
def test_old_bundle_flag_still_works_with_a_warning(board_files):
    """--bundle was renamed --data-bundle; scripts that still pass it get the same plan."""
    bundle, app, boot = board_files("s3")
    common = ("flash", "--board", "s3", "--dry-run", "--app", str(app), "--bootloader", str(boot))
    new = k32(*common, "--data-bundle", str(bundle))
    old = k32(*common, "--bundle", str(bundle))
    assert old.returncode == 0, old.stderr
    assert old.stdout == new.stdout
    assert "--bundle is deprecated; use --data-bundle" in old.stderr
    assert "deprecated" not in new.stderr
    both = k32(*common, "--bundle", str(bundle), "--data-bundle", str(bundle))
    assert both.returncode == 2 and "give --data-bundle only" in both.stderr
