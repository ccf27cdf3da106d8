import argparse
import signal
import sys
import threading

from k32.boards import BoardError, flash_size_bytes

from .rom import RomDouble
from .server import PtyServer, SocketServer


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m k32.testing.esprom",
        description=("ESP ROM serial bootloader double writing into a flash-image file"),
    )
    ap.add_argument("--chip", default="esp32s3", choices=["esp32", "esp32s3"])
    ap.add_argument("--flash-size", default="8MB")
    ap.add_argument("--image", required=True)
    ap.add_argument("--port", type=int, default=0, help="TCP port (0: any free one)")
    ap.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal instead")
    a = ap.parse_args(argv)
    try:
        rom = RomDouble(a.chip, a.image, flash_size_bytes(a.flash_size))
    except (BoardError, ValueError, OSError) as e:
        print(f"esprom: {e}", file=sys.stderr)
        return 2
    server = (PtyServer(rom) if a.pty else SocketServer(rom, a.port)).start()
    print(server.path if a.pty else server.url, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
