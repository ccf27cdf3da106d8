"""A minimal Kubernetes REST client for `k32 apply`: discovery (kind -> resource) and JSON
requests over the host tools' HTTP client, so it behaves identically against kube-apiserver and
the Kube32 simulator."""

from __future__ import annotations

import urllib.parse

from k32.httpclient import HttpClient, HttpError
from k32.kubeconfig import Connection

from ..errors import RenderError

FIELD_MANAGER = "k32"
TIMEOUT_S = 30


class Client:
    def __init__(self, conn: Connection):
        self.conn = conn
        self.http = HttpClient(conn.server, conn.ssl_context, conn.headers, TIMEOUT_S)
        self._discovery: dict[str, dict] = {}

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "application/json",
        query: dict | None = None,
    ):
        """-> (status, decoded JSON or None). Transport failures are RenderErrors."""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        try:
            r = self.http.request(method, path, body, headers, query)
        except HttpError as e:
            raise RenderError("api_unreachable", str(e)) from None
        try:
            return r.status, r.json() if r.body else None
        except ValueError:
            return r.status, {"message": r.body[:200].decode("utf-8", "replace")}

    def resource_for(self, api_version: str, kind: str) -> tuple[str, bool]:
        """(plural, namespaced) from the server's discovery document."""
        if api_version not in self._discovery:
            path = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
            status, doc = self.request("GET", path)
            if status in (401, 403):
                raise RenderError(
                    "api_auth", f"GET {path}: HTTP {status}: {status_message(doc)} (check the kubeconfig credentials)"
                )
            if status != 200 or not isinstance(doc, dict):
                raise RenderError(
                    "unknown_kind",
                    f"{api_version}: the API server does not serve this group/version (GET {path} -> {status})",
                )
            self._discovery[api_version] = {
                r["kind"]: (r["name"], bool(r.get("namespaced")))
                for r in doc.get("resources", [])
                if "/" not in r.get("name", "")
            }
        found = self._discovery[api_version].get(kind)
        if not found:
            raise RenderError("unknown_kind", f"{api_version} {kind}: not served by this API server")
        return found

    def object_path(self, api_version, kind, namespace, name) -> str:
        plural, namespaced = self.resource_for(api_version, kind)
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        ns = f"/namespaces/{urllib.parse.quote(namespace or self.conn.namespace)}" if namespaced else ""
        return f"{base}{ns}/{plural}/{urllib.parse.quote(name)}"


def status_message(doc) -> str:
    if isinstance(doc, dict):
        return str(doc.get("message") or doc.get("reason") or doc)
    return str(doc)
