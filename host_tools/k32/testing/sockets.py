"""Reading raw sockets in tests that speak HTTP or console lines by hand."""

from __future__ import annotations

import socket


def recv_until(sock: socket.socket, marker: bytes, reset_is_close: bool = False) -> bytes:
    """Everything received until `marker` has arrived (b"\\r\\n\\r\\n": an HTTP head, b"\\n": a
    line), or until the peer closed; the caller checks whether the marker came. With
    reset_is_close a reset connection counts as closed instead of raising."""
    got = b""
    while marker not in got:
        try:
            chunk = sock.recv(4096)
        except ConnectionResetError:
            if not reset_is_close:
                raise
            break
        if not chunk:
            break
        got += chunk
    return got
