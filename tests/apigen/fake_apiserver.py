"""A throwaway HTTP server that serves legacy discovery for the served kinds plus the
generated OpenAPI documents, and records the requests it gets, so real kubectl binaries
can be pointed at the documents alone (no firmware needed)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from k32.apigen import build_documents
from k32.apigen.documents import CT_V2_PROTOBUF
from k32.apigen.kinds import SERVED_KINDS


def _discovery():
    groups, resources = {}, {}
    for k in SERVED_KINDS:
        groups.setdefault(k.group, k.version)
        verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
        resources.setdefault(k.gv_path, []).append(
            {
                "name": k.plural,
                "singularName": k.kind.lower(),
                "namespaced": k.namespaced,
                "kind": k.kind,
                "verbs": verbs,
            }
        )
    out = {
        "/api": {
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
        },
        "/apis": {
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [
                {
                    "name": g,
                    "versions": [{"groupVersion": f"{g}/{v}", "version": v}],
                    "preferredVersion": {"groupVersion": f"{g}/{v}", "version": v},
                }
                for g, v in groups.items()
                if g
            ],
        },
    }
    for gv, res in resources.items():
        out["/" + gv] = {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": gv.split("/", 1)[1] if gv.startswith("apis/") else "v1",
            "resources": res,
        }
    return out


class FakeApiServer:
    def __init__(self):
        docs, _ = build_documents()
        self.docs = docs
        self.discovery = _discovery()
        self.requests = []  # (method, path with query, accept header or body)
        self.objects = {}  # path of a created object -> the object
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code, body: bytes, ctype="application/json"):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _status(self, code, reason, message):
                self._send(
                    code,
                    json.dumps(
                        {
                            "kind": "Status",
                            "apiVersion": "v1",
                            "status": "Failure",
                            "reason": reason,
                            "message": message,
                            "code": code,
                        }
                    ).encode(),
                )

            def do_GET(self):
                accept = self.headers.get("Accept", "")
                server.requests.append(("GET", self.path, accept))
                path = urlsplit(self.path).path
                if path in server.discovery:
                    return self._send(200, json.dumps(server.discovery[path]).encode())
                want_pb = "protobuf" in accept and "json" not in accept.split(",")[0]
                for d in server.docs:
                    if d.path == path and (d.content_type == CT_V2_PROTOBUF) == want_pb:
                        return self._send(200, d.data, d.content_type)
                for d in server.docs:
                    if d.path == path:
                        return self._send(200, d.data, d.content_type)
                if path in server.objects:
                    return self._send(200, json.dumps(server.objects[path]).encode())
                return self._status(404, "NotFound", f"{path} not found")

            def do_PATCH(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append(
                    ("PATCH", self.path, self.headers.get("Content-Type", ""), body.decode("utf-8", "replace"))
                )
                path = urlsplit(self.path).path
                if path not in server.objects:
                    return self._status(404, "NotFound", f"{path} not found")
                # The patch is recorded, not applied: the tests look at what kubectl sends.
                return self._send(200, json.dumps(server.objects[path]).encode())

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append(("POST", self.path, body.decode("utf-8", "replace")))
                obj = json.loads(body or b"{}")
                obj.setdefault("metadata", {})["uid"] = "1"
                obj["metadata"]["resourceVersion"] = "1"
                server.objects[urlsplit(self.path).path + "/" + obj["metadata"].get("name", "")] = obj
                return self._send(201, json.dumps(obj).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def kubeconfig(self, path):
        path.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "current-context": "fake",
                    "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
                    "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u", "namespace": "default"}}],
                    "users": [{"name": "u", "user": {}}],
                }
            )
        )
        return path
