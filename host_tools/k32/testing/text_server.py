"""A local HTTP server that answers every GET with one fixed body: the "outside host" the
egress and network-policy tests call from their pods. It counts the GETs it answered."""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextlib.contextmanager
def text_server(body: bytes, port: int = 0, host: str = "127.0.0.1"):
    """The running server (port 0: any free one, see server_address); its `hits` counts GETs.
    Binding a taken port raises OSError before anything runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.server.hits += 1
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer((host, port), Handler)
    srv.hits = 0
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
