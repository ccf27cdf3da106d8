"""The objects `k32 bench memory` creates, as the API server takes them (JSON bodies with
their collection paths): an echo app (Pod + Service + Ingress), a 1 KB ConfigMap and an echo
Deployment. Everything lives in the namespace `default`, so the idle figure holds no object
the bench made."""

from __future__ import annotations

from .memory_targets import CONFIGMAP_BYTES, ECHO_IMAGE, EVENT_FILL_BYTES, HISTORY_FILL_BYTES, POD_MEMORY_LIMIT

NAMESPACE = "default"
PREFIX = "bm"  # names of the bench's objects: bm-<i>, bm-cm-<i>, bm-deploy
CORE = f"/api/v1/namespaces/{NAMESPACE}"
NETWORKING = f"/apis/networking.k8s.io/v1/namespaces/{NAMESPACE}"
APPS = f"/apis/apps/v1/namespaces/{NAMESPACE}"


def app_name(i: int) -> str:
    return f"{PREFIX}-{i}"


def container() -> dict:
    return {
        "name": "echo",
        "image": ECHO_IMAGE,
        "ports": [{"containerPort": 7000, "name": "http"}],
        "resources": {"requests": {"memory": POD_MEMORY_LIMIT}, "limits": {"memory": POD_MEMORY_LIMIT}},
    }


def pod(name: str) -> tuple[str, dict]:
    return f"{CORE}/pods", {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"restartPolicy": "Always", "containers": [container()]},
    }


def service(name: str) -> tuple[str, dict]:
    return f"{CORE}/services", {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 80, "targetPort": 7000}]},
    }


def ingress(name: str) -> tuple[str, dict]:
    backend = {"service": {"name": name, "port": {"number": 80}}}
    return f"{NETWORKING}/ingresses", {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name},
        "spec": {"rules": [{"http": {"paths": [{"path": f"/{name}", "pathType": "Prefix", "backend": backend}]}}]},
    }


def app(i: int) -> list[tuple[str, dict]]:
    """An echo app: its Pod, the Service in front of it and the Ingress path /bm-<i>."""
    name = app_name(i)
    return [pod(name), service(name), ingress(name)]


def configmap(i: int) -> tuple[str, dict]:
    """A ConfigMap whose data is CONFIGMAP_BYTES bytes (key and value together)."""
    key = "data"
    return f"{CORE}/configmaps", {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{PREFIX}-cm-{i}"},
        "data": {key: "x" * (CONFIGMAP_BYTES - len(key))},
    }


def history_filler(version: int) -> tuple[str, dict]:
    """The ConfigMap whose updates fill the watch history (each leaves its previous version
    there, as a heartbeat leaves the Node's); `version` makes each update's data differ."""
    key = "data"
    mark = f"{version:08d}"
    return f"{CORE}/configmaps", {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{PREFIX}-history"},
        "data": {key: mark + "h" * (HISTORY_FILL_BYTES - len(key) - len(mark))},
    }


def event(i: int) -> tuple[str, dict]:
    """An Event of about EVENT_FILL_BYTES, as a controller writes one: these fill the Events kept
    to their budget before the Deployment is measured."""
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{PREFIX}-event-{i:04d}"},
        "involvedObject": {"kind": "ConfigMap", "namespace": NAMESPACE, "name": f"{PREFIX}-history"},
        "reason": "BenchFill",
        "type": "Normal",
        "source": {"component": "k32-bench"},
        "count": 1,
    }
    body["message"] = "m" * max(1, EVENT_FILL_BYTES - len(str(body)))
    return f"{CORE}/events", body


def deployment(name: str, replicas: int) -> tuple[str, dict]:
    return f"{APPS}/deployments", {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container()]}},
        },
    }


def object_path(collection: str, body: dict) -> str:
    return f"{collection}/{body['metadata']['name']}"
