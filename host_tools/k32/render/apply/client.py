"""A minimal Kubernetes REST client: discovery (kind -> resource) and JSON requests.
Plain urllib so it behaves identically against kube-apiserver and the Kube32 simulator."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from ..errors import RenderError
from .kubeconfig import Connection

FIELD_MANAGER = "k32"
TIMEOUT_S = 30


class Client:
    def __init__(self, conn: Connection):
        self.conn = conn
        self._discovery: dict[str, dict] = {}

    def request(self, method: str, path: str, body: bytes | None = None,
                content_type: str = "application/json", query: dict | None = None):
        """-> (status, decoded JSON or None). Transport failures are RenderErrors."""
        url = self.conn.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, data=body, method=method,
                                     headers={"Accept": "application/json", **self.conn.headers})
        if body is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S, context=self.conn.ssl_context) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        except (urllib.error.URLError, OSError) as e:
            raise RenderError("api_unreachable", f"{method} {url}: {getattr(e, 'reason', e)}") from None
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, {"message": raw[:200].decode("utf-8", "replace")}

    def resource_for(self, api_version: str, kind: str) -> tuple[str, bool]:
        """(plural, namespaced) from the server's discovery document."""
        if api_version not in self._discovery:
            path = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
            status, doc = self.request("GET", path)
            if status in (401, 403):
                raise RenderError("api_auth", f"GET {path}: HTTP {status}: {status_message(doc)} "
                                  "(check the kubeconfig credentials)")
            if status != 200 or not isinstance(doc, dict):
                raise RenderError("unknown_kind", f"{api_version}: the API server does not serve "
                                  f"this group/version (GET {path} -> {status})")
            self._discovery[api_version] = {r["kind"]: (r["name"], bool(r.get("namespaced")))
                                            for r in doc.get("resources", [])
                                            if "/" not in r.get("name", "")}
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
