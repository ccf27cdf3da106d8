"""`k32 bench memory`: the control plane's heap per region on the 32-bit build of the S3 node.

One fresh control plane (no workers, so every pod runs on it), driven over its API with the
host tools' HTTP client and read through its console's STATUS (memory_probe.py says how a
figure is taken). In order: idle, at start and once its watch history is full; the metrics
API's records per node and per pod (memory_workloads.py); with the apps (Pod + Service +
Ingress each, echo image); after each delete/re-apply round; the marginal cost of one pod,
Service, Ingress and 1 KB ConfigMap (the slope over several, made with the apps in place); a
Deployment beyond its pods and one rollout of it; the metrics API's requests; and every
thread's peak stack."""

from __future__ import annotations

import time

from k32.httpclient import HttpClient, HttpError
from k32.testing import poll

from . import memory_objects as obj
from . import memory_workloads as workloads
from .memory_probe import HOW, BenchError, ProbeError, Reading, settle, status
from .memory_targets import EVENT_FILL_BYTES, HISTORY_FILL_BYTES, MARGINAL_OBJECTS

POD_START_TIMEOUT_S = 120.0
POD_GONE_TIMEOUT_S = 120.0
API_TIMEOUT_S = 30.0
BUSY_RETRIES = 10
BUSY_RETRY_S = 0.5


class Bench:
    def __init__(
        self,
        api: HttpClient,
        console: str,
        ingress: tuple[str, int],
        history_max: int,
        progress=None,
        events_max: int = 0,
        store_max: int = 0,
    ):
        self.api = api
        self.history_max = history_max  # the board's watch_history budget, bytes
        self.events_max = events_max  # the board's events_kept budget, bytes
        self.events_made = 0
        self.store_max = store_max  # the board's store_total_max budget, bytes
        self.console = console
        self.ingress = HttpClient(f"http://{ingress[0]}:{ingress[1]}", timeout=10.0, keep_alive=False)
        self.say = progress or (lambda msg: None)

    # ---- API ------------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        """One API request; a 503 (every connection slot busy for a moment, the node's own
        clients included) is tried again a few times, as client libraries do."""
        for _ in range(BUSY_RETRIES):
            try:
                r = self.api.request(method, path, body, headers)
            except HttpError as e:
                raise BenchError(str(e)) from None
            if r.status != 503:
                return r
            time.sleep(BUSY_RETRY_S)
        return r

    def create(self, collection: str, body: dict) -> None:
        r = self._request("POST", collection, body)
        if r.status not in (200, 201):
            raise BenchError(f"POST {collection} {body['metadata']['name']}: {r.status} {r.body[:300]!r}")

    def delete(self, collection: str, body: dict) -> None:
        path = obj.object_path(collection, body)
        r = self._request("DELETE", path)
        if r.status not in (200, 202, 404):
            raise BenchError(f"DELETE {path}: {r.status} {r.body[:300]!r}")

    def _gone(self, path: str) -> bool:
        return self._request("GET", path).status == 404

    def wait_gone(self, paths: list[str]) -> None:
        for p in paths:
            poll.poll_until(lambda p=p: self._gone(p), POD_GONE_TIMEOUT_S, f"{p} deleted", interval=0.2)

    def _running(self, name: str) -> bool:
        r = self._request("GET", f"{obj.CORE}/pods/{name}")
        if r.status != 200:
            return False
        st = r.json().get("status", {})
        cs = st.get("containerStatuses") or []
        return st.get("phase") == "Running" and bool(cs) and all(c.get("ready") for c in cs)

    def _answers(self, name: str) -> bool:
        try:
            return self.ingress.request("POST", f"/{name}/bench", b"ping").status == 200
        except HttpError:
            return False

    def wait_serving(self, names: list[str], through_ingress: bool) -> None:
        """Each pod Running and ready, and answering through its Ingress path when it has one."""
        for n in names:
            poll.poll_until(lambda n=n: self._running(n), POD_START_TIMEOUT_S, f"pod {n} Running", interval=0.2)
            if through_ingress:
                poll.poll_until(lambda n=n: self._answers(n), POD_START_TIMEOUT_S, f"/{n} answering", interval=0.2)

    def node_metric(self, name: str) -> int:
        """One of the node's own figures from GET /metrics (Prometheus text)."""
        r = self._request("GET", "/metrics")
        if r.status != 200:
            raise BenchError(f"GET /metrics: {r.status} {r.body[:300]!r}")
        for line in r.body.decode(errors="replace").splitlines():
            if line.startswith(name + " "):
                return int(line.split()[1])
        raise BenchError(f"GET /metrics has no {name}: the node is older than this bench")

    def history_bytes(self) -> int:
        """What the watch history holds now, as the node counts it against its budget."""
        return self.node_metric("k32_watch_history_bytes")

    def store_bytes(self) -> int:
        """The stored objects' serialised bytes, as the store counts them against store_total_max."""
        return self.node_metric("k32_store_bytes")

    def fill_history(self) -> int:
        """Fills the watch history as an idle node's heartbeats do within minutes: one ConfigMap
        updated until the history is within one of its versions of the budget (its oldest events
        leave from then on), then deleted. Returns the history's bytes when full."""
        collection, body = obj.history_filler(0)
        self.create(collection, body)
        path = obj.object_path(collection, body)
        full_at = self.history_max - 2 * HISTORY_FILL_BYTES
        # Each update adds a version; a few times the budget's worth, and the history is full.
        for version in range(1, 4 * self.history_max // HISTORY_FILL_BYTES + 1):
            if self.history_bytes() >= full_at:
                break
            r = self._request("PUT", path, obj.history_filler(version)[1])
            if r.status != 200:
                raise BenchError(f"PUT {path}: {r.status} {r.body[:300]!r}")
        self.delete(collection, body)
        held = self.history_bytes()
        if held < full_at:
            raise BenchError(f"watch history holds {held} bytes after filling, under {full_at} of {self.history_max}")
        return held

    def fill_events(self) -> int:
        """Fills the Events kept to their budget, as a node that has run a while has them: Events
        of about EVENT_FILL_BYTES, a quarter of the budget more than it holds, so the node has
        already deleted its oldest (the bench's own, or its controllers' earlier ones). Each call
        writes new ones. Returns how many it wrote."""
        count = (self.events_max * 5 // 4) // EVENT_FILL_BYTES + 1
        for _ in range(count):
            self.create(*obj.event(self.events_made))
            self.events_made += 1
        return count

    # ---- scenario -------------------------------------------------------------------------
    def apply_apps(self, n: int) -> None:
        for i in range(n):
            for collection, body in obj.app(i):
                self.create(collection, body)
        self.wait_serving([obj.app_name(i) for i in range(n)], through_ingress=True)

    def delete_apps(self, n: int) -> None:
        for i in range(n):
            for collection, body in reversed(obj.app(i)):
                self.delete(collection, body)
        self.wait_gone([obj.object_path(*obj.pod(obj.app_name(i))) for i in range(n)])

    def marginal(self, kind: str, apps: int, steady: bool = False) -> dict:
        """The heap of `count` more objects of one kind over the settled figure before them,
        per object; the objects are deleted again afterwards. `steady`: read as settle(steady=True)."""
        count = MARGINAL_OBJECTS[kind]
        made = [self._marginal_object(kind, apps, i) for i in range(count)]
        before = settle(self.console, steady=steady)
        for collection, body in made:
            self.create(collection, body)
        if kind == "pod":
            self.wait_serving([b["metadata"]["name"] for _, b in made], through_ingress=False)
        after = settle(self.console, steady=steady)
        for collection, body in made:
            self.delete(collection, body)
        if kind == "pod":
            self.wait_gone([obj.object_path(c, b) for c, b in made])
        return _per_object(before, after, count)

    def _marginal_object(self, kind: str, apps: int, i: int) -> tuple[str, dict]:
        name = f"{obj.PREFIX}-m{i}"
        if kind == "pod":
            return obj.pod(name)
        if kind == "service":
            return obj.service(name)
        if kind == "ingress":
            # Routes to an app's Service that exists, as a real Ingress would.
            collection, body = obj.ingress(name)
            backend = body["spec"]["rules"][0]["http"]["paths"][0]["backend"]
            backend["service"]["name"] = obj.app_name(0) if apps else name
            return collection, body
        return obj.configmap(i)


def _per_object(before: Reading, after: Reading, count: int) -> dict:
    return {
        "objects": count,
        # The judged figure (internal RAM on the board, linear memory left out), then the
        # regions as the node counted them.
        "internalBytes": round((after.internal_without_linear - before.internal_without_linear) / count),
        # The same with the watch history and the Events kept left out (Reading.internal_steady).
        "steadyBytes": round((after.internal_steady - before.internal_steady) / count),
        "heapInternalBytes": round((after.internal - before.internal) / count),
        "psramBytes": round((after.psram - before.psram) / count),
        "linearBytes": round((after.linear - before.linear) / count),
        "quiet": before.quiet and after.quiet,
    }


def run(bench: Bench, apps: int, rounds: int) -> dict:
    """Every figure in order; a step that fails (the node ran out of heap and stopped, a pod
    never started) ends the run with `error` saying where, and the figures taken so far."""
    say = bench.say
    out: dict = {"how": HOW, "workload": {"apps": apps, "rounds": rounds}}
    try:
        say("idle …")
        out["idleAtStart"] = settle(bench.console).as_dict()
        out["idleAtStart"]["historyBytes"] = bench.history_bytes()
        say("idle, watch history filled …")
        held = bench.fill_history()
        out["idle"] = settle(bench.console).as_dict()
        out["idle"]["historyBytes"] = max(held, bench.history_bytes())
        out["idle"]["historyMaxBytes"] = bench.history_max
        say("the metrics API's records …")
        out["metricsStore"] = workloads.metrics_store(bench)
        say(f"{apps} apps …")
        bench.apply_apps(apps)
        out["apps"] = settle(bench.console).as_dict()
        out["apps"]["storeBytes"] = bench.store_bytes()
        out["apps"]["storeMaxBytes"] = bench.store_max
        out["churn"] = []
        for r in range(rounds):
            say(f"round {r + 1}/{rounds}: delete and re-apply …")
            bench.delete_apps(apps)
            deleted = settle(bench.console)
            bench.apply_apps(apps)
            out["churn"].append({"deleted": deleted.as_dict(), "apps": settle(bench.console).as_dict()})
        say("marginal costs …")
        out["marginal"] = {}
        for kind in ("pod", "service", "ingress", "configmap"):
            out["marginal"][kind] = bench.marginal(kind, apps)
        say("Deployment, its rollout …")
        out["deployment"] = workloads.deployment(bench)
        say("metrics API …")
        out["metricsApi"] = workloads.metrics_api(bench)
        out["stacks"] = status(bench.console)["stacks"]
    except (BenchError, ProbeError, poll.PollTimeout) as e:
        out["error"] = str(e)
    out["measuredAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return out
