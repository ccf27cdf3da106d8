"""Fixtures for tests/calls: the k32-call tool, a test PKI made with `cryptography`, and
local HTTP/HTTPS servers on loopback that answer what each test needs."""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import socketserver
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from k32 import REPO_ROOT
from k32.testing.sockets import recv_until

BUILD_DIR = Path(os.environ.get("K32_CALLS_BUILD", REPO_ROOT / "build" / "host"))


@pytest.fixture(scope="session")
def k32_call() -> Path:
    """The k32-call binary, built on demand in the shared host build."""
    subprocess.run(
        ["cmake", "-S", str(REPO_ROOT / "firmware"), "-B", str(BUILD_DIR)], check=True, stdout=subprocess.DEVNULL
    )
    subprocess.run(
        ["nice", "cmake", "--build", str(BUILD_DIR), "-j2", "--target", "k32-call"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return BUILD_DIR / "k32-call"


# ---- PKI ----


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(subject: str, issuer_key, issuer_name, key, *, ca: bool, sans=(), days=(-1, 30)) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    b = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now + datetime.timedelta(days=days[0]))
        .not_valid_after(now + datetime.timedelta(days=days[1]))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName(list(sans)), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


@dataclass
class Pki:
    ca_pem: Path
    good: tuple[Path, Path]  # names localhost and 127.0.0.1
    wrong_host: tuple[Path, Path]
    expired: tuple[Path, Path]
    untrusted: tuple[Path, Path]


@pytest.fixture(scope="session")
def pki(tmp_path_factory) -> Pki:
    d = tmp_path_factory.mktemp("pki")

    def write(name, cert, key):
        c, k = d / f"{name}.crt", d / f"{name}.key"
        c.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        k.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        return c, k

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("k32 test CA", ca_key, _name("k32 test CA"), ca_key, ca=True, days=(-2, 365))
    ca_pem = d / "ca.pem"
    ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    rogue_key = ec.generate_private_key(ec.SECP256R1())
    rogue_name = _name("rogue CA")
    ca_name = _name("k32 test CA")

    def leaf(name, sans, issuer_key=ca_key, issuer_name=ca_name, days=(-1, 30)):
        key = ec.generate_private_key(ec.SECP256R1())
        return write(name, _cert(name, issuer_key, issuer_name, key, ca=False, sans=sans, days=days), key)

    here = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.IPv4Address("127.0.0.1"))]
    return Pki(
        ca_pem=ca_pem,
        good=leaf("good", here),
        wrong_host=leaf("wrong", [x509.DNSName("other.example")]),
        expired=leaf("expired", here, days=(-30, -1)),
        untrusted=leaf("untrusted", here, issuer_key=rogue_key, issuer_name=rogue_name),
    )


# ---- servers ----


class RawServer:
    """A threaded TCP server: `respond(method, path, headers, body, sock)` writes raw bytes."""

    def __init__(self, respond, tls: ssl.SSLContext | None = None, port: int = 0):
        outer = self
        self.requests: list[tuple[str, str, dict, bytes]] = []

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                sock = self.request
                try:
                    if tls:
                        sock = tls.wrap_socket(sock, server_side=True)
                    data = recv_until(sock, b"\r\n\r\n")
                    if b"\r\n\r\n" not in data:
                        return
                    head, _, body = data.partition(b"\r\n\r\n")
                    lines = head.decode("latin-1").split("\r\n")
                    method, path, _ = lines[0].split(" ", 2)
                    headers = {}
                    for line in lines[1:]:
                        k, _, v = line.partition(":")
                        headers[k.strip().lower()] = v.strip()
                    n = int(headers.get("content-length", "0"))
                    while len(body) < n:
                        body += sock.recv(4096)
                    outer.requests.append((method, path, headers, body))
                    respond(method, path, headers, body, sock)
                except (OSError, ssl.SSLError):
                    pass
                finally:
                    try:
                        sock.close()
                    except OSError:
                        pass

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        self.server = Server(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def simple(status: int, body: bytes, extra: str = "") -> bytes:
    return (f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n{extra}\r\n").encode() + body


def default_routes(method, path, headers, body, sock):
    """The behaviours the return-code tests rely on, by path."""
    if path == "/ok":
        sock.sendall(simple(200, b"hello"))
    elif path == "/headers":
        sock.sendall(simple(200, json.dumps(headers).encode(), "Content-Type: application/json\r\n"))
    elif path == "/echo":
        sock.sendall(simple(201, method.encode() + b" " + body))
    elif path.startswith("/big"):
        sock.sendall(simple(200, b"x" * 10000))
    elif path == "/chunked-big":
        sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(20):
            sock.sendall(b"400\r\n" + b"y" * 1024 + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
    elif path == "/chunked":
        sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
    elif path == "/to-close":
        sock.sendall(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")
    elif path == "/slow":
        time.sleep(3)
        sock.sendall(simple(200, b"late"))
    elif path == "/interim":
        sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n")
        sock.sendall(simple(200, b"final"))
    elif path == "/redirect":
        sock.sendall(simple(302, b"", "Location: http://example.invalid/next\r\n"))
    elif path.startswith("/head/"):
        n = int(path.split("/")[2])
        sock.sendall(simple(200, b"ok", f"X-Pad: {'p' * n}\r\n"))
    elif path == "/garbage":
        sock.sendall(b"SPDY/9 what\r\n\r\n")
    elif path == "/cut":
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part")
    else:
        sock.sendall(simple(404, b"no route"))


@pytest.fixture(scope="session")
def http_server():
    s = RawServer(default_routes)
    yield s
    s.close()


def tls_context(cert: tuple[Path, Path], *, tls13_only: bool = False) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(cert[0]), str(cert[1]))
    if tls13_only:
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    return ctx


@pytest.fixture(scope="session")
def https_servers(pki):
    """name -> RawServer for good / wrong_host / expired / untrusted / tls13."""
    servers = {
        "good": RawServer(default_routes, tls_context(pki.good)),
        "wrong_host": RawServer(default_routes, tls_context(pki.wrong_host)),
        "expired": RawServer(default_routes, tls_context(pki.expired)),
        "untrusted": RawServer(default_routes, tls_context(pki.untrusted)),
        "tls13": RawServer(default_routes, tls_context(pki.good, tls13_only=True)),
    }
    yield servers
    for s in servers.values():
        s.close()
