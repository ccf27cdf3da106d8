"""The host tools' one HTTP client: every request to an API server, a pod server or an ingress
(the simulator's helpers, `k32 apply`, `k32 kubeconfig`, `k32 image push`, the benchmarks)
goes through it, so TLS, timeouts, keep-alive and the answer's size cap behave the same
everywhere.

Plain http.client rather than urllib: one keep-alive connection per client (the benchmarks
measure the server, not connection setup), no redirects followed, and every status comes back
as an answer instead of an exception. A transport failure (refused, reset, TLS, timeout, an
answer over the cap) raises HttpError, an OSError, so callers that wait for a server to come
up can treat it like any other socket error."""

from __future__ import annotations

import http.client
import json
import ssl
import urllib.parse
from dataclasses import dataclass

DEFAULT_TIMEOUT_S = 10.0
# No answer a tool reads is near this (the largest are OpenAPI documents and node lists); a
# bigger one means a wrong server, and is cut off instead of read into memory.
BODY_MAX_BYTES = 64 * 1024 * 1024


class HttpError(OSError):
    """The request got no complete answer: the message names method, URL and cause."""


@dataclass
class Response:
    status: int
    headers: dict  # as the server sent them (case kept; a repeated header: its last value)
    body: bytes

    def json(self):
        """The body as JSON (ValueError if it is not)."""
        return json.loads(self.body)


class HttpClient:
    """Requests to one server: `base_url` is scheme://host[:port][/prefix]; every path is
    appended to it. With keep_alive the connection is reused (and reopened once if the server
    closed it in between); without it every request has its own, so one client can be shared
    between threads."""

    def __init__(
        self,
        base_url: str,
        ssl_context: ssl.SSLContext | None = None,
        headers: dict | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        keep_alive: bool = True,
        body_max: int = BODY_MAX_BYTES,
    ):
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"server URL {base_url!r} must look like http(s)://HOST[:PORT]")
        self.base_url = base_url.rstrip("/")
        self.https = u.scheme == "https"
        self.host = u.hostname
        self.port = u.port or (443 if self.https else 80)
        self.prefix = u.path.rstrip("/")
        self.ssl_context = ssl_context
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.keep_alive = keep_alive
        self.body_max = body_max
        self._conn: http.client.HTTPConnection | None = None

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.ssl_context)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | dict | list | None = None,
        headers: dict | None = None,
        query: dict | None = None,
        timeout: float | None = None,
    ) -> Response:
        """One request; a dict or list body is sent as JSON. Any status is an answer."""
        hdrs = {**self.headers, **(headers or {})}
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
        target = self.prefix + path
        if query:
            target += ("&" if "?" in target else "?") + urllib.parse.urlencode(query)
        timeout = self.timeout if timeout is None else timeout
        reused = self._conn is not None
        for attempt in (1, 2):
            conn = self._conn if self._conn is not None else self._connect(timeout)
            conn.timeout = timeout
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
            try:
                conn.request(method, target, body=body, headers=hdrs)
                resp = conn.getresponse()
                data = resp.read(self.body_max + 1)
                if len(data) > self.body_max:
                    raise HttpError(f"{method} {self.base_url}{target}: answer larger than {self.body_max} bytes")
                answer = Response(resp.status, dict(resp.headers), data)
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                self._conn = None
                stale = isinstance(e, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError))
                if attempt == 1 and reused and stale:
                    continue  # the server closed an idle keep-alive connection: reopen once
                if isinstance(e, HttpError):
                    raise
                raise HttpError(f"{method} {self.base_url}{target}: {_reason(e)}") from None
            if self.keep_alive and not resp.will_close:
                self._conn = conn
            else:
                conn.close()
                self._conn = None
            return answer
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def request(
    base_url: str,
    method: str,
    path: str,
    body=None,
    headers: dict | None = None,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    query: dict | None = None,
) -> Response:
    """One request on a connection of its own."""
    with HttpClient(base_url, ssl_context, timeout=timeout, keep_alive=False) as client:
        return client.request(method, path, body, headers, query)


def _reason(e: BaseException) -> str:
    if isinstance(e, ssl.SSLError):
        return f"TLS: {e.reason or e}"
    return " ".join(str(e).split()) or type(e).__name__
