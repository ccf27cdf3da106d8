"""Deployments and ReplicaSets on a simulated cluster of a control plane and two workers,
driven by real kubectl 1.20, 1.32 and 1.37: create, scale across nodes, a rolling update
whose pod counts a watch records (never more than replicas + maxSurge pods, never fewer
than replicas - maxUnavailable ready), rollout undo to the earlier ReplicaSet, and deletion
collecting the ReplicaSets and pods through their owner references."""

import json
import subprocess
import threading

import pytest
from kubernetes import client, watch
from pods_helpers import nodes, wait_until

from k32.build.tools import kubectl

IMAGE = "kube32.io/embedded/echo"
IMAGE2 = "wasm://embedded/echo"  # the same module under its other name: a new template
VERSIONS = ["1.20", "1.32", "1.37"]

# Each test drives pods through their whole life on the shared cluster: seconds, not milliseconds.
pytestmark = pytest.mark.slow


def kc(cluster, version, *args, timeout=90.0):
    p = cluster.kubectl(*args, version=version, timeout=timeout)
    assert p.returncode == 0, f"kubectl {version} {' '.join(args)}: {p.stderr}"
    return p.stdout


def get_json(cluster, *args):
    p = cluster.kubectl("get", *args, "-o", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def pods_of(cluster, ns, app):
    return get_json(cluster, "pods", "-n", ns, "-l", f"app={app}")["items"]


def ready(pod):
    return any(c["type"] == "Ready" and c["status"] == "True" for c in pod["status"].get("conditions") or [])


def running_pods(cluster, ns, app, n):
    def check():
        live = [p for p in pods_of(cluster, ns, app) if not p["metadata"].get("deletionTimestamp")]
        return (
            live if len(live) == n and all(p["status"].get("phase") == "Running" and ready(p) for p in live) else None
        )

    return wait_until(check, timeout=90.0, interval=0.3)


def namespace(cluster, ns, version="1.37"):
    """ns, created unless an earlier run on the shared cluster left it."""
    if cluster.kubectl("get", "namespace", ns).returncode != 0:
        kc(cluster, version, "create", "namespace", ns)
    return ns


def workload(kind, name, replicas, **spec):
    """An apps/v1 Deployment or ReplicaSet of echo pods labelled app=name; spec adds fields."""
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            **spec,
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "echo", "image": IMAGE}]},
            },
        },
    }


def apply(cluster, ns, obj, version="1.37"):
    p = cluster.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(obj), version=version)
    assert p.returncode == 0, p.stderr


class PodCountWatch:
    """Watches the pods of one app with the official client and records, after every event,
    how many are not terminating and how many of those are Ready."""

    def __init__(self, api_client, ns, app):
        self.core = client.CoreV1Api(api_client)
        self.ns, self.app = ns, app
        self.state = {}
        self.samples = []  # (live, ready live)
        self.present = []  # pods there at all, terminating ones included
        self.names = set()
        self.w = watch.Watch()
        self.stopping = False
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            self._follow()
        except Exception as e:  # the stream breaks when stop() closes it; otherwise a failure
            if not self.stopping:
                self.error = e

    def _follow(self):
        for ev in self.w.stream(
            self.core.list_namespaced_pod, self.ns, label_selector=f"app={self.app}", timeout_seconds=120
        ):
            pod = ev["object"]
            name = pod.metadata.name
            self.names.add(name)
            if ev["type"] == "DELETED":
                self.state.pop(name, None)
            else:
                is_ready = any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or [])
                self.state[name] = (pod.metadata.deletion_timestamp is None, is_ready)
            live = [s for s in self.state.values() if s[0]]
            self.samples.append((len(live), sum(1 for s in live if s[1])))
            self.present.append(len(self.state))

    def stop(self):
        self.stopping = True
        self.w.stop()
        self.thread.join(timeout=130)
        assert self.error is None, f"the pod watch failed: {self.error!r}"


@pytest.mark.parametrize("version", VERSIONS)
def test_deployment_create_scale_roll_undo_delete(sim_cluster, k8s_client, version):
    ns = namespace(sim_cluster, "deploy-" + version.replace(".", ""), version)
    app = "web"

    kc(sim_cluster, version, "create", "deployment", app, "--image", IMAGE, "-n", ns)
    [pod] = running_pods(sim_cluster, ns, app, 1)
    [rs] = get_json(sim_cluster, "replicasets", "-n", ns)["items"]
    dep = get_json(sim_cluster, "deployment", app, "-n", ns)
    h = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"{app}-{h}" and pod["metadata"]["labels"]["pod-template-hash"] == h
    [rs_owner] = rs["metadata"]["ownerReferences"]
    assert (rs_owner["kind"], rs_owner["uid"], rs_owner["controller"]) == ("Deployment", dep["metadata"]["uid"], True)
    [pod_owner] = pod["metadata"]["ownerReferences"]
    assert (pod_owner["kind"], pod_owner["uid"]) == ("ReplicaSet", rs["metadata"]["uid"])
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"

    # scale --replicas=5: five pods Running, spread over every node of the cluster.
    kc(sim_cluster, version, "scale", "deployment", app, "--replicas=5", "-n", ns)
    pods = running_pods(sim_cluster, ns, app, 5)
    assert pods, pods_of(sim_cluster, ns, app)
    assert {p["spec"]["nodeName"] for p in pods} == set(nodes(sim_cluster)), [p["spec"]["nodeName"] for p in pods]
    out = kc(sim_cluster, version, "get", "deployment", app, "-n", ns)
    head, row = out.splitlines()[:2]
    assert head.split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert wait_until(
        lambda: (
            kc(sim_cluster, version, "get", "deployment", app, "-n", ns).splitlines()[1].split()[1:4]
            == ["5/5", "5", "5"]
        )
    ), out
    described = kc(sim_cluster, version, "describe", "deployment", app, "-n", ns)
    assert f"Scaled up replica set {rs['metadata']['name']} from 1 to 5" in described, described
    out = kc(sim_cluster, version, "get", "replicasets", "-n", ns)
    assert out.splitlines()[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert out.splitlines()[1].split()[:4] == [rs["metadata"]["name"], "5", "5", "5"], out

    # Rolling update one pod at a time: maxSurge 1, maxUnavailable 0.
    kc(
        sim_cluster,
        version,
        "patch",
        "deployment",
        app,
        "-n",
        ns,
        "-p",
        '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}',
    )
    watcher = PodCountWatch(k8s_client, ns, app)
    try:
        assert wait_until(lambda: watcher.samples and watcher.samples[-1] == (5, 5)), watcher.samples
        start = len(watcher.samples)
        kc(sim_cluster, version, "set", "image", f"deployment/{app}", f"echo={IMAGE2}", "-n", ns)
        status = kc(sim_cluster, version, "rollout", "status", f"deployment/{app}", "-n", ns, "--timeout=90s")
        assert "successfully rolled out" in status
        assert wait_until(lambda: watcher.samples[-1] == (5, 5) and len(watcher.state) == 5), watcher.samples[-5:]
    finally:
        watcher.stop()
    during = watcher.samples[start:]
    assert max(live for live, _ in during) <= 6, during  # replicas + maxSurge
    assert min(rdy for _, rdy in during) >= 5, during  # replicas - maxUnavailable
    assert len(watcher.names) >= 10, watcher.names  # five pods replaced by five new ones
    new = running_pods(sim_cluster, ns, app, 5)
    assert all(p["spec"]["containers"][0]["image"] == IMAGE2 for p in new)
    assert all(p["metadata"]["labels"]["pod-template-hash"] != h for p in new)
    history = kc(sim_cluster, version, "rollout", "history", f"deployment/{app}", "-n", ns)
    assert [ln.split()[0] for ln in history.splitlines() if ln[:1].isdigit()] == ["1", "2"], history

    # rollout undo: back to the first ReplicaSet, which becomes revision 3.
    kc(sim_cluster, version, "rollout", "undo", f"deployment/{app}", "-n", ns)
    kc(sim_cluster, version, "rollout", "status", f"deployment/{app}", "-n", ns, "--timeout=90s")
    back = running_pods(sim_cluster, ns, app, 5)
    assert back and all(p["metadata"]["labels"]["pod-template-hash"] == h for p in back)
    first = get_json(sim_cluster, "replicaset", rs["metadata"]["name"], "-n", ns)
    assert first["spec"]["replicas"] == 5
    assert first["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert (
        get_json(sim_cluster, "deployment", app, "-n", ns)["spec"]["template"]["spec"]["containers"][0]["image"]
        == IMAGE
    )

    # delete deployment: its ReplicaSets and pods are collected.
    kc(sim_cluster, version, "delete", "deployment", app, "-n", ns, "--wait=false")
    assert wait_until(
        lambda: not get_json(sim_cluster, "replicasets", "-n", ns)["items"] and not pods_of(sim_cluster, ns, app)
    ), (get_json(sim_cluster, "replicasets", "-n", ns)["items"], pods_of(sim_cluster, ns, app))


def test_deletion_propagation_orphan_and_foreground(sim_cluster):
    """--cascade=orphan leaves the pods, without their owner reference (and a Deployment's
    next ReplicaSet adopts them); --cascade=foreground keeps the owner, with the
    foregroundDeletion finalizer, until its dependents are gone."""
    ns = namespace(sim_cluster, "deploy-gc")
    apply(sim_cluster, ns, workload("ReplicaSet", "solo", 2))
    solo = running_pods(sim_cluster, ns, "solo", 2)
    assert solo
    kc(sim_cluster, "1.37", "delete", "replicaset", "solo", "-n", ns, "--cascade=orphan", "--wait=false")
    assert wait_until(lambda: sim_cluster.kubectl("get", "replicaset", "solo", "-n", ns).returncode != 0)
    left = pods_of(sim_cluster, ns, "solo")
    assert sorted(p["metadata"]["name"] for p in left) == sorted(p["metadata"]["name"] for p in solo)
    assert all(not p["metadata"].get("ownerReferences") for p in left), left
    kc(sim_cluster, "1.37", "delete", "pod", "-n", ns, "--wait=false", *[p["metadata"]["name"] for p in left])

    kc(sim_cluster, "1.37", "create", "deployment", "keep", "--image", IMAGE, "--replicas=2", "-n", ns)
    before = running_pods(sim_cluster, ns, "keep", 2)
    assert before
    [rs] = get_json(sim_cluster, "replicasets", "-n", ns)["items"]
    kc(
        sim_cluster,
        "1.37",
        "delete",
        "replicaset",
        rs["metadata"]["name"],
        "-n",
        ns,
        "--cascade=orphan",
        "--wait=false",
    )

    def adopted():
        try:
            again = get_json(sim_cluster, "replicaset", rs["metadata"]["name"], "-n", ns)
        except AssertionError:
            return None
        ps = pods_of(sim_cluster, ns, "keep")
        uid = again["metadata"]["uid"]
        return (
            ps
            if uid != rs["metadata"]["uid"]
            and all([o["uid"] for o in p["metadata"].get("ownerReferences", [])] == [uid] for p in ps)
            else None
        )

    after = wait_until(adopted)
    assert after, pods_of(sim_cluster, ns, "keep")
    assert sorted(p["metadata"]["name"] for p in after) == sorted(p["metadata"]["name"] for p in before)

    kc(sim_cluster, "1.37", "delete", "deployment", "keep", "-n", ns, "--cascade=foreground", "--wait=false")
    dep = sim_cluster.kubectl("get", "deployment", "keep", "-n", ns, "-o", "json")
    if dep.returncode == 0:  # caught before the collector finished
        md = json.loads(dep.stdout)["metadata"]
        assert md.get("deletionTimestamp") and "foregroundDeletion" in md["finalizers"], md
    assert wait_until(lambda: sim_cluster.kubectl("get", "deployment", "keep", "-n", ns).returncode != 0)
    assert not get_json(sim_cluster, "replicasets", "-n", ns)["items"]
    assert wait_until(lambda: not pods_of(sim_cluster, ns, "keep"))


def test_scale_subresource_and_validation(sim_cluster):
    ns = namespace(sim_cluster, "deploy-api")
    bad = sim_cluster.kubectl(
        "apply",
        "-n",
        ns,
        "-f",
        "-",
        input=json.dumps(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "bad"},
                "spec": {
                    "selector": {"matchLabels": {"app": "a"}},
                    "template": {
                        "metadata": {"labels": {"app": "b"}},
                        "spec": {"containers": [{"name": "c", "image": IMAGE}]},
                    },
                },
            }
        ),
    )
    assert bad.returncode != 0 and "`selector` does not match template `labels`" in bad.stderr, bad.stderr
    kc(sim_cluster, "1.37", "create", "deployment", "sc", "--image", IMAGE, "-n", ns)
    dep = get_json(sim_cluster, "deployment", "sc", "-n", ns)
    spec = dep["spec"]
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    assert (spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (10, 600)
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/sc/scale"
    status, _, body = sim_cluster.request("GET", path)
    scale = json.loads(body)
    assert status == 200 and (scale["apiVersion"], scale["kind"]) == ("autoscaling/v1", "Scale"), body
    assert scale["spec"]["replicas"] == 1 and scale["status"]["selector"] == "app=sc"
    status, _, body = sim_cluster.request(
        "PATCH", path, '{"spec":{"replicas":-1}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert status == 422 and b"spec.replicas" in body, body
    status, _, body = sim_cluster.request(
        "PATCH", path, '{"spec":{"replicas":3}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert status == 200 and json.loads(body)["spec"]["replicas"] == 3, body
    assert running_pods(sim_cluster, ns, "sc", 3)
    kc(sim_cluster, "1.37", "delete", "namespace", ns, "--wait=false")


def test_scale_patches_are_retried_on_conflict(sim_cluster):
    """A /scale patch that names no resourceVersion is applied to whatever the object is by
    then, as kube-apiserver does: neither the controller's status writes nor other clients'
    patches landing in between may turn it into a 409. One that pins a stale version gets 409."""
    ns = namespace(sim_cluster, "deploy-scale-race")
    kc(sim_cluster, "1.37", "create", "deployment", "race", "--image", IMAGE, "-n", ns)
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/race/scale"
    merge = {"Content-Type": "application/merge-patch+json"}
    codes = []

    def patcher(k):
        for i in range(10):
            body = json.dumps({"spec": {"replicas": (i + k) % 3}})
            status, _, data = sim_cluster.request("PATCH", path, body, headers=merge)
            codes.append((status, data[:160]))

    threads = [threading.Thread(target=patcher, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(codes) == 30 and all(status == 200 for status, _ in codes), [c for c in codes if c[0] != 200]

    status, _, body = sim_cluster.request("GET", path)
    stale = int(json.loads(body)["metadata"]["resourceVersion"]) - 1
    pinned = json.dumps({"metadata": {"resourceVersion": str(stale)}, "spec": {"replicas": 2}})
    status, _, body = sim_cluster.request("PATCH", path, pinned, headers=merge)
    assert status == 409 and b"the object has been modified" in body, body
    kc(sim_cluster, "1.37", "delete", "namespace", ns, "--wait=false")


def replica_sets(cluster, ns):
    """(old spec.replicas, new spec.replicas) of a Deployment with two ReplicaSets, by revision."""
    items = get_json(cluster, "replicasets", "-n", ns)["items"]
    items.sort(key=lambda rs: int(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]))
    return tuple(rs["spec"]["replicas"] for rs in items)


def progressing(cluster, ns, name):
    conds = get_json(cluster, "deployment", name, "-n", ns)["status"].get("conditions") or []
    return next(((c["status"], c["reason"]) for c in conds if c["type"] == "Progressing"), None)


@pytest.mark.parametrize("version", ["1.20", "1.37"])
def test_scaling_mid_rollout_is_proportional(sim_cluster, version):
    """A rollout stuck half-way (the new pods fit no node) and then scaled, running or
    paused: the change of replicas + maxSurge is spread over the old and new ReplicaSets by
    their sizes, as kube-controller-manager does, instead of going to the new ReplicaSet
    alone; resumed without progress, the Progressing condition is DeploymentResumed."""
    ns = namespace(sim_cluster, "deploy-prop-" + version.replace(".", ""), version)
    strategy = {"rollingUpdate": {"maxSurge": 2, "maxUnavailable": 1}}
    apply(sim_cluster, ns, workload("Deployment", "prop", 4, strategy=strategy), version)
    assert running_pods(sim_cluster, ns, "prop", 4)
    # The new template's pods stay Pending: the rollout stops at 3 old + 3 new
    # (4 + maxSurge pods, 4 - maxUnavailable of them available).
    kc(
        sim_cluster,
        version,
        "patch",
        "deployment",
        "prop",
        "-n",
        ns,
        "-p",
        '{"spec":{"template":{"spec":{"nodeSelector":{"kube32.io/nowhere":"x"}}}}}',
    )
    assert wait_until(lambda: replica_sets(sim_cluster, ns) == (3, 3)), replica_sets(sim_cluster, ns)
    # 8 replicas: 8 + 2 allowed, 6 there; each ReplicaSet gets 3 * 10 / 6 - 3 = 2 more.
    kc(sim_cluster, version, "scale", "deployment", "prop", "--replicas=8", "-n", ns)
    assert wait_until(lambda: replica_sets(sim_cluster, ns) == (5, 5)), replica_sets(sim_cluster, ns)
    # The controller records each scaling Event just after that ReplicaSet's write.
    assert wait_until(
        lambda: kc(sim_cluster, version, "describe", "deployment", "prop", "-n", ns).count("from 3 to 5") == 2
    ), kc(sim_cluster, version, "describe", "deployment", "prop", "-n", ns)
    # Paused, the same spreading: 4 replicas, 4 + 2 allowed, 10 there; each gives up
    # 5 - 5 * 6 / 10 = 2.
    kc(sim_cluster, version, "rollout", "pause", "deployment/prop", "-n", ns)
    assert wait_until(lambda: progressing(sim_cluster, ns, "prop") == ("Unknown", "DeploymentPaused"))
    kc(sim_cluster, version, "scale", "deployment", "prop", "--replicas=4", "-n", ns)
    assert wait_until(lambda: replica_sets(sim_cluster, ns) == (3, 3)), replica_sets(sim_cluster, ns)
    # Resumed with nothing to move (the new pods still fit no node): Progressing says so.
    kc(sim_cluster, version, "rollout", "resume", "deployment/prop", "-n", ns)
    assert wait_until(lambda: progressing(sim_cluster, ns, "prop") == ("Unknown", "DeploymentResumed")), progressing(
        sim_cluster, ns, "prop"
    )
    # 0 replicas: every ReplicaSet gives up all of its pods.
    kc(sim_cluster, version, "scale", "deployment", "prop", "--replicas=0", "-n", ns)
    assert wait_until(lambda: replica_sets(sim_cluster, ns) == (0, 0)), replica_sets(sim_cluster, ns)
    assert wait_until(lambda: not pods_of(sim_cluster, ns, "prop"))
    kc(sim_cluster, version, "delete", "namespace", ns, "--wait=false")


def controller_uid(obj):
    return next((o["uid"] for o in obj["metadata"].get("ownerReferences", []) if o.get("controller")), None)


def test_replicaset_releases_and_adopts_pods_on_every_sync(sim_cluster):
    """A pod relabelled out of a ReplicaSet's selector is released (its owner reference goes
    and the ReplicaSet makes a replacement); relabelled back, it is adopted again, long after
    the ReplicaSet's first sync, and the surplus pod goes."""
    ns = namespace(sim_cluster, "deploy-claim")
    apply(sim_cluster, ns, workload("ReplicaSet", "claim", 2))
    first = running_pods(sim_cluster, ns, "claim", 2)
    assert first
    uid = get_json(sim_cluster, "replicaset", "claim", "-n", ns)["metadata"]["uid"]
    moved = first[0]["metadata"]["name"]

    kc(sim_cluster, "1.20", "label", "pod", moved, "-n", ns, "app=elsewhere", "--overwrite")

    def released():
        pod = get_json(sim_cluster, "pod", moved, "-n", ns)
        return pod if not pod["metadata"].get("ownerReferences") else None

    assert wait_until(released), get_json(sim_cluster, "pod", moved, "-n", ns)["metadata"]
    again = running_pods(sim_cluster, ns, "claim", 2)  # a replacement for the released pod
    assert again and moved not in {p["metadata"]["name"] for p in again}
    assert all(controller_uid(p) == uid for p in again)

    kc(sim_cluster, "1.37", "label", "pod", moved, "-n", ns, "app=claim", "--overwrite")

    def settled():
        live = [p for p in pods_of(sim_cluster, ns, "claim") if not p["metadata"].get("deletionTimestamp")]
        return live if len(live) == 2 and all(controller_uid(p) == uid for p in live) else None

    def adopted():
        pod = sim_cluster.kubectl("get", "pod", moved, "-n", ns, "-o", "json")
        # Adopted, then possibly chosen as the surplus pod and deleted: either way it was claimed.
        return pod.returncode != 0 or controller_uid(json.loads(pod.stdout)) == uid

    assert wait_until(adopted), get_json(sim_cluster, "pod", moved, "-n", ns)["metadata"]
    assert wait_until(settled), pods_of(sim_cluster, ns, "claim")
    kc(sim_cluster, "1.37", "delete", "namespace", ns, "--wait=false")


def test_deployment_adopts_orphaned_replicaset(sim_cluster):
    """A Deployment deleted with --cascade=orphan and created again takes its old ReplicaSet
    back (same template, same pods) instead of starting a second one beside it."""
    ns = namespace(sim_cluster, "deploy-adopt-rs")
    kc(sim_cluster, "1.37", "create", "deployment", "again", "--image", IMAGE, "--replicas=2", "-n", ns)
    before = running_pods(sim_cluster, ns, "again", 2)
    assert before
    [rs] = get_json(sim_cluster, "replicasets", "-n", ns)["items"]
    kc(sim_cluster, "1.20", "delete", "deployment", "again", "-n", ns, "--cascade=false")
    assert wait_until(lambda: sim_cluster.kubectl("get", "deployment", "again", "-n", ns).returncode != 0)
    assert wait_until(
        lambda: (
            not get_json(sim_cluster, "replicaset", rs["metadata"]["name"], "-n", ns)["metadata"].get("ownerReferences")
        )
    )

    kc(sim_cluster, "1.37", "create", "deployment", "again", "--image", IMAGE, "--replicas=2", "-n", ns)
    dep = get_json(sim_cluster, "deployment", "again", "-n", ns)

    def taken_back():
        items = get_json(sim_cluster, "replicasets", "-n", ns)["items"]
        return items if len(items) == 1 and controller_uid(items[0]) == dep["metadata"]["uid"] else None

    assert wait_until(taken_back), get_json(sim_cluster, "replicasets", "-n", ns)["items"]
    assert taken_back()[0]["metadata"]["uid"] == rs["metadata"]["uid"]
    after = running_pods(sim_cluster, ns, "again", 2)
    assert sorted(p["metadata"]["name"] for p in after) == sorted(p["metadata"]["name"] for p in before)
    assert wait_until(
        lambda: (
            kc(sim_cluster, "1.37", "get", "deployment", "again", "-n", ns).splitlines()[1].split()[1:4]
            == ["2/2", "2", "2"]
        )
    )
    kc(sim_cluster, "1.37", "delete", "namespace", ns, "--wait=false")


@pytest.mark.parametrize("version", ["1.20", "1.37"])
def test_get_rs_watch_follows_a_rollout(sim_cluster, version):
    """`kubectl get rs -w` through a rolling update started by `kubectl set env`: the new
    ReplicaSet appears already sized for the surge (DESIRED 1 of 2 with maxSurge 25%, as
    kube-controller-manager creates it), the old one steps down, and both end settled."""
    ns = namespace(sim_cluster, "deploy-watch-" + version.replace(".", ""), version)
    kc(sim_cluster, version, "create", "deployment", "w", "--image", IMAGE, "--replicas=2", "-n", ns)
    assert running_pods(sim_cluster, ns, "w", 2)
    [old] = get_json(sim_cluster, "replicasets", "-n", ns)["items"]
    argv = [str(kubectl(version)), "--kubeconfig", str(sim_cluster.kubeconfig), "--context", sim_cluster.context]
    watcher = subprocess.Popen([*argv, "get", "rs", "-w", "-n", ns], stdout=subprocess.PIPE, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(watcher.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        # kubectl lists first, then watches from that list's version: no change is missed after it.
        assert wait_until(lambda: any(ln.startswith(old["metadata"]["name"]) for ln in list(lines))), lines
        kc(sim_cluster, version, "set", "env", "deployment/w", "FOO=bar", "-n", ns)
        status = kc(sim_cluster, version, "rollout", "status", "deployment/w", "-n", ns, "--timeout=60s")
        assert "successfully rolled out" in status
        new = next(
            rs["metadata"]["name"]
            for rs in get_json(sim_cluster, "replicasets", "-n", ns)["items"]
            if rs["metadata"]["name"] != old["metadata"]["name"]
        )
        expect_last = {old["metadata"]["name"]: ["0", "0", "0"], new: ["2", "2", "2"]}

        def settled():
            rows = [ln.split() for ln in list(lines) if ln.split() and ln.split()[0] in expect_last]
            return rows if {r[0]: r[1:4] for r in rows} == expect_last else None

        rows = wait_until(settled)
        assert rows, lines
    finally:
        watcher.kill()
        watcher.wait()
    assert lines[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"], lines
    first_new = next(r for r in rows if r[0] == new)
    assert first_new[1] == "1", lines  # created with its surge, not at 0
    env = get_json(sim_cluster, "deployment", "w", "-n", ns)["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "FOO", "value": "bar"}]
    kc(sim_cluster, version, "delete", "namespace", ns, "--wait=false")


def test_recreate_stops_every_old_pod_before_the_new_replicaset(sim_cluster, k8s_client):
    """strategy Recreate: the old pods are all gone (not only terminating) before the new
    ReplicaSet is made, which then starts every replica at once; a watch never sees old and
    new pods together."""
    ns = namespace(sim_cluster, "deploy-recreate")
    apply(sim_cluster, ns, workload("Deployment", "rc", 2, strategy={"type": "Recreate"}))
    old = running_pods(sim_cluster, ns, "rc", 2)
    assert old
    old_hash = old[0]["metadata"]["labels"]["pod-template-hash"]
    watcher = PodCountWatch(k8s_client, ns, "rc")
    try:
        assert wait_until(lambda: watcher.samples and watcher.samples[-1] == (2, 2)), watcher.samples
        kc(sim_cluster, "1.37", "set", "image", "deployment/rc", f"echo={IMAGE2}", "-n", ns)
        kc(sim_cluster, "1.37", "rollout", "status", "deployment/rc", "-n", ns, "--timeout=60s")
        assert wait_until(lambda: watcher.samples[-1] == (2, 2) and len(watcher.state) == 2), watcher.samples
    finally:
        watcher.stop()
    assert max(watcher.present) <= 2, watcher.present  # no new pod while an old one terminates
    new = running_pods(sim_cluster, ns, "rc", 2)
    assert new and all(p["metadata"]["labels"]["pod-template-hash"] != old_hash for p in new)
    described = kc(sim_cluster, "1.37", "describe", "deployment", "rc", "-n", ns)
    assert "from 0 to 2" in described and "from 2 to 0" in described, described
    kc(sim_cluster, "1.37", "delete", "namespace", ns, "--wait=false")
