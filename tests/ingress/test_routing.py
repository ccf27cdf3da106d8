"""Ingress host and path matching, table-driven, against the running controller: exact
host, then wildcard (*.domain, one label), then host-less rules; the longest path wins,
Exact over Prefix on a tie; Prefix matches whole segments.

No pods run behind these Services, so every routed request answers 503 naming the
Service the controller chose: that is how each case shows which rule won."""

import pytest
from ingress_helpers import apply, get, json_body, wait_until

NS = "route-test"
SERVICES = [
    "svc-api",
    "svc-login",
    "svc-root",
    "svc-wild",
    "svc-hostless",
    "svc-dup",
    "svc-x-exact",
    "svc-x-prefix",
    "svc-docs",
    "svc-default",
    "svc-other",
]


def manifests() -> str:
    docs = [f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {NS}\n"]
    for s in SERVICES:
        docs.append(f"""apiVersion: v1
kind: Service
metadata: {{name: {s}, namespace: {NS}}}
spec:
  selector: {{app: {s}}}
  ports: [{{name: http, port: 80, targetPort: 7000}}]
""")

    def path(p, t, svc):
        return f"      - {{path: {p}, pathType: {t}, backend: {{service: {{name: {svc}, port: {{number: 80}}}}}}}}\n"

    docs.append(
        f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: a-exact, namespace: {NS}}}
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
"""
        + path("/api", "Prefix", "svc-api")
        + path("/api/v1/login", "Exact", "svc-login")
        + path("/", "Prefix", "svc-root")
    )
    docs.append(
        f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: b-wild, namespace: {NS}}}
spec:
  ingressClassName: kube32
  rules:
  - host: "*.example.com"
    http:
      paths:
"""
        + path("/", "Prefix", "svc-wild")
    )
    docs.append(
        f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: c-hostless, namespace: {NS}}}
spec:
  rules:
  - http:
      paths:
"""
        + path("/static", "Prefix", "svc-hostless")
        + path("/x", "Exact", "svc-x-exact")
        + path("/x", "Prefix", "svc-x-prefix")
        + path("/docs/", "ImplementationSpecific", "svc-docs")
    )
    docs.append(
        f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: d-dup, namespace: {NS}}}
spec:
  rules:
  - http:
      paths:
"""
        + path("/static", "Prefix", "svc-dup")
    )
    docs.append(f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: e-default, namespace: {NS}}}
spec:
  defaultBackend: {{service: {{name: svc-default, port: {{name: http}}}}}}
""")
    docs.append(
        f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: f-other-class, namespace: {NS}}}
spec:
  ingressClassName: nginx
  rules:
  - host: other.test
    http:
      paths:
"""
        + path("/", "Prefix", "svc-other")
    )
    return "---\n".join(docs)


def chosen(cluster, host, path):
    status, headers, body = get(cluster, path, host=host)
    if status == 503:
        assert headers.get("retry-after") == "2"
        msg = json_body(body)["message"]
        return msg.split(f"{NS}/")[1].split(" ")[0]
    return status


@pytest.fixture(scope="module")
def routes(sim_cluster):
    apply(sim_cluster, manifests())
    # kubectl creates the Ingresses one after another, and a table built while it did holds
    # the first ones only (a request rebuilds it at most every 250 ms): wait for the last one
    # that shows, e-default (f-other-class is ignored either way), not the first.
    assert wait_until(lambda: chosen(sim_cluster, "none.test", "/unmatched") == "svc-default")
    yield sim_cluster


CASES = [
    # host, path, expected Service — with the rule each proves
    ("SHOP.example.com:8080", "/api", "svc-api"),  # Host lower-cased, port stripped
    ("shop.example.com", "/api/", "svc-api"),  # segment match with trailing slash
    ("shop.example.com", "/api/x/y", "svc-api"),  # deeper segments
    ("shop.example.com", "/apix", "svc-root"),  # /api does not match /apix
    ("shop.example.com", "/api/v1/login", "svc-login"),  # longest path wins (Exact)
    ("shop.example.com", "/api/v1/login/", "svc-api"),  # Exact is byte for byte
    ("shop.example.com", "/static/a.css", "svc-root"),  # only the most specific host group
    ("a.example.com", "/anything", "svc-wild"),  # single-label wildcard
    ("a.b.example.com", "/", "svc-default"),  # wildcard is one label deep only
    ("none.test", "/static/a.css", "svc-hostless"),  # duplicate rule: first in ns/name order
    ("none.test", "/x", "svc-x-exact"),  # Exact wins a tie with Prefix
    ("none.test", "/x/y", "svc-x-prefix"),
    ("none.test", "/docs", "svc-docs"),  # rule's trailing slash ignored
    ("none.test", "/docs/guide", "svc-docs"),
    ("other.test", "/", "svc-default"),  # other ingress classes are ignored
    ("none.test", "/unmatched", "svc-default"),  # defaultBackend (by port name)
]


@pytest.mark.parametrize("host,path,expected", CASES)
def test_route(routes, host, path, expected):
    assert chosen(routes, host, path) == expected


def test_address_written(routes):
    proc = routes.kubectl("get", "ingress", "-n", NS)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    ip = next(n for n in routes.status()["nodes"] if n["role"] == "control-plane")["ip"]
    a_exact = next(line for line in lines if line.startswith("a-exact"))
    assert wait_until(lambda: ip in routes.kubectl("get", "ingress", "a-exact", "-n", NS).stdout)
    other = routes.kubectl("get", "ingress", "f-other-class", "-n", NS).stdout
    assert ip not in other, "an Ingress of another class must not get this controller's address"
    assert a_exact


def test_unmatched_is_404_json_without_default(routes):
    proc = routes.kubectl("delete", "ingress", "e-default", "-n", NS)
    assert proc.returncode == 0, proc.stderr
    assert wait_until(lambda: get(routes, "/unmatched", host="none.test")[0] == 404)
    status, headers, body = get(routes, "/unmatched", host="none.test")
    assert headers["content-type"] == "application/json"
    assert json_body(body)["code"] == 404


def test_oversized_body_is_413(routes):
    import http.client

    from ingress_helpers import ingress_address

    ip, port = ingress_address(routes)
    conn = http.client.HTTPConnection(ip, port, timeout=10)
    conn.request("POST", "/api", body=b"x" * (65536 + 1), headers={"Host": "shop.example.com"})
    resp = conn.getresponse()
    assert resp.status == 413
    assert json_body(resp.read())["reason"] == "RequestEntityTooLarge"
    conn.close()
    assert chosen(routes, "shop.example.com", "/api") == "svc-api"  # still serving
