"""Serve the ROM double on a TCP port (socket://host:port) or a pty.

    python -m k32.testing.esprom --chip esp32s3 --flash-size 8MB --image flash.bin [--port 0 | --pty]
prints `socket://127.0.0.1:<port>` or the pty path, then serves until killed."""

from __future__ import annotations

import os
import socket
import threading

from . import slip
from .rom import RomDouble


def _serve_stream(rom: RomDouble, read, write, stop: threading.Event):
    dec = slip.Decoder()
    while not stop.is_set():
        data = read()
        if not data:
            return
        for frame in dec.feed(data):
            for reply in rom.handle_frame(frame):
                write(reply)


class _Served:
    """The ROM double served on a thread of its own from start() until stop(); a subclass
    defines _loop (the serving, until self._stop is set) and _close (its channel's end)."""

    def __init__(self, rom: RomDouble):
        self.rom = rom
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self._close()


class SocketServer(_Served):
    """Accepts one client at a time on 127.0.0.1 (esptool opens the port once per run)."""

    def __init__(self, rom: RomDouble, port: int = 0):
        self.sock = socket.create_server(("127.0.0.1", port))
        self.port = self.sock.getsockname()[1]
        self.url = f"socket://127.0.0.1:{self.port}"
        super().__init__(rom)

    def _loop(self):
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(0.2)

                # Called only inside this iteration's `with conn`, so `conn` is this one.
                def read(conn=conn):
                    while not self._stop.is_set():
                        try:
                            return conn.recv(65536)
                        except TimeoutError:
                            continue
                        except OSError:
                            return b""
                    return b""

                try:
                    _serve_stream(self.rom, read, conn.sendall, self._stop)
                except OSError:
                    pass

    def _close(self):
        self.sock.close()


class PtyServer(_Served):
    """A pseudo-terminal whose other end is the ROM: pass `.path` as the serial port."""

    def __init__(self, rom: RomDouble):
        import tty

        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        super().__init__(rom)

    def _loop(self):
        import select

        def read():
            while not self._stop.is_set():
                if select.select([self.master], [], [], 0.2)[0]:
                    try:
                        return os.read(self.master, 65536)
                    except OSError:
                        return b""
            return b""

        _serve_stream(self.rom, read, lambda b: os.write(self.master, b), self._stop)

    def _close(self):
        os.close(self.master)
        os.close(self.slave)
