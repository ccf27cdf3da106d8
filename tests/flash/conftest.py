"""Fixtures: a bundle with app and bootloader images, and a ROM double on socket://."""

import pytest
from flash_helpers import make_image

from k32.boards import flash_size_bytes
from k32.data_bundle import build as build_bundle
from k32.testing.esprom.rom import RomDouble
from k32.testing.esprom.server import SocketServer


@pytest.fixture
def board_files(tmp_path):
    """board name -> (bundle dir, app, bootloader)."""

    def make(board_name):
        d = tmp_path / board_name
        d.mkdir(exist_ok=True)
        bundle = d / "bundle"
        build_bundle(board_name, bundle)
        return (
            bundle,
            make_image(board_name, d / "firmware.bin", "app"),
            make_image(board_name, d / "bootloader.bin", "bootloader"),
        )

    return make


@pytest.fixture
def rom(tmp_path):
    """chip -> (RomDouble, socket url); the double's flash image is tmp/flash-<chip>.img."""
    servers = []

    def start(chip, flash_size="8MB"):
        double = RomDouble(chip, str(tmp_path / f"flash-{chip}.img"), flash_size_bytes(flash_size))
        server = SocketServer(double).start()
        servers.append((server, double))
        return double, server.url

    yield start
    for server, double in servers:
        server.stop()
        double.close()
