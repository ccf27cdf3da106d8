"""The outside hosts the egress scenarios call: a plain HTTP server on port 8000 (the port
examples/egress-policy.yaml allows) and an HTTPS server with the test CA's certificate."""

import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b"hello from the hil host"


class Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def serve(bind: str, port: int, tls: tuple | None = None) -> ThreadingHTTPServer:
    """Starts a server in a thread; tls=(cert, key) makes it HTTPS (TLS 1.2 as the nodes speak)."""
    srv = ThreadingHTTPServer((bind, port), Hello)
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(str(tls[0]), str(tls[1]))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv
