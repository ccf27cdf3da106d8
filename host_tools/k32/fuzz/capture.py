"""Records what real clients send, for the HTTP and protobuf seed corpora: a TCP relay that
passes every connection to an API server and saves each connection's client bytes as one
seed (firmware/fuzz/seeds/http/), and each "k8s\\0" protobuf body in it as another
(firmware/fuzz/seeds/protobuf/). Run it in front of a plain-HTTP API server, point kubectl at
it, and run the commands whose requests should seed the fuzzer:

    python -m k32.fuzz.capture --listen 127.0.0.1:16443 --upstream 127.0.0.1:6443 --seconds 60
"""

import argparse
import hashlib
import re
import socket
import threading
import time

from .targets import SEEDS_DIR


def _pipe(src, dst, record: bytearray | None):
    try:
        while data := src.recv(65536):
            if record is not None:
                record += data
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _save(name: str, data: bytes):
    d = SEEDS_DIR / name
    d.mkdir(parents=True, exist_ok=True)
    (d / f"captured-{hashlib.sha1(data).hexdigest()[:16]}").write_bytes(data)


def _save_connection(sent: bytes):
    if not sent:
        return
    _save("http", sent[:8192])
    # protobuf bodies: after a head that says so, Content-Length bytes starting with k8s\0
    for m in re.finditer(rb"\r\n\r\n(k8s\x00)", sent):
        head = sent[: m.start()].rsplit(b"\r\n\r\n", 1)[-1]
        cl = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
        if cl:
            _save("protobuf", sent[m.start(1) : m.start(1) + int(cl.group(1))])


def serve(listen: tuple[str, int], upstream: tuple[str, int], seconds: int):
    srv = socket.create_server(listen)
    srv.settimeout(0.5)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            c, _ = srv.accept()
        except TimeoutError:
            continue
        u = socket.create_connection(upstream)
        sent = bytearray()

        def relay(c=c, u=u, sent=sent):
            back = threading.Thread(target=_pipe, args=(u, c, None), daemon=True)
            back.start()
            _pipe(c, u, sent)
            back.join(5)
            _save_connection(bytes(sent))

        threading.Thread(target=relay, daemon=True).start()
    time.sleep(1)


def _addr(s: str) -> tuple[str, int]:
    host, port = s.rsplit(":", 1)
    return host, int(port)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listen", type=_addr, required=True)
    ap.add_argument("--upstream", type=_addr, required=True)
    ap.add_argument("--seconds", type=int, default=60)
    a = ap.parse_args()
    serve(a.listen, a.upstream, a.seconds)
