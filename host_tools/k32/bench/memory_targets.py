"""What `k32 bench memory` measures and the targets it judges: the one place these numbers are
written. The workload (how many apps, rounds, the ConfigMap's size, the Deployment's replicas)
and the targets are those of the memory diet for the control plane on the S3 board profile,
measured on the 32-bit build (the boards' pointer size, so every structure has the board's
size)."""

from __future__ import annotations

from k32.boards.profile import load_board, load_common

KIB = 1024

BOARD = "s3"  # the control-plane board whose budgets the node runs with
APPS = 10  # Pod + Service + Ingress each
ROUNDS = 5  # delete-and-re-apply rounds of the apps
ECHO_IMAGE = "wasm://embedded/echo"
POD_MEMORY_LIMIT = "64Ki"
CONFIGMAP_BYTES = 1024  # the data of one ConfigMap, in bytes
DEPLOYMENT_REPLICAS = 3
ROLLOUT_IMAGE = "kube32.io/embedded/echo"  # the echo module under its other name: a new pod template
METRICS_REQUESTS = 20  # GETs of the metrics API's nodes and pods lists, each
# Nodes whose usage reports the bench sends (Node objects it makes), and pods in each report:
# with the control plane, the metrics API's most nodes (METRICS_NODES_MAX) and most of its pods.
METRICS_NODES = 15
METRICS_PODS_PER_NODE = 3
# The idle figure is judged with the watch history full, as an idle node lives within minutes
# (each Node status heartbeat leaves its previous version, about 1.6 KB, in the history). The
# bench fills it at once the same way: one ConfigMap of about a Node status's size, updated
# until the history holds its budget, then deleted.
HISTORY_FILL_BYTES = 1536
# The Deployment's figures are taken in the same steady state, the Events kept at their budget
# too (a node that has run a while has both full): new Events and history entries then displace
# older ones instead of adding to them, so what stays is the Deployment's. The bench fills the
# Events with Events of about this size, a quarter past the budget so its oldest already left.
EVENT_FILL_BYTES = 1024
# Create/rollout/delete cycles of the Deployment in one run: its figures are their median (a
# figure is a difference of two readings, each a few hundred bytes off), reported with the range.
DEPLOYMENT_CYCLES = 3
# Objects made for one marginal cost: the heap moves by a few hundred bytes between two quiet
# samples (a heartbeat's buffers), so the cost of one object is the slope over several.
MARGINAL_OBJECTS = {"pod": 3, "service": 5, "ingress": 5, "configmap": 10}

# The workload layer's targets come from the board's budgets for it (boards/s3.yaml): a
# Deployment's deployment_overhead is 5/8 its own objects and state, 3/8 one earlier ReplicaSet
# kept as revision history; metrics_records, the metrics API's records when full, is 1/4 its
# nodes' and 3/4 its pods'.
_BUDGETS = load_board(BOARD).budgets
_COMMON = load_common()
DEPLOYMENT_TARGET = _BUDGETS["deployment_overhead"]["bytes"] * 5 // 8
ROLLOUT_TARGET = _BUDGETS["deployment_overhead"]["bytes"] * 3 // 8
METRICS_NODE_TARGET = _BUDGETS["metrics_records"]["bytes"] // 4 // _COMMON["METRICS_NODES_MAX"]
METRICS_POD_TARGET = _BUDGETS["metrics_records"]["bytes"] * 3 // 4 // _COMMON["METRICS_PODS_MAX"]

# name -> (what, limit, unit): "bytes" limits a measured figure; "ratio" limits the largest
# relative change of the with-apps figure across the rounds from the first one.
TARGETS = {
    "idle_internal": ("control plane idle, watch history full, internal heap", 64 * KIB, "bytes"),
    "apps_internal": (f"with {APPS} apps, internal heap not counting the pods' linear memory", 256 * KIB, "bytes"),
    "churn": (f"with {APPS} apps after {ROUNDS} delete/re-apply rounds, change from the first", 0.10, "ratio"),
    "configmap": (f"one {CONFIGMAP_BYTES}-byte ConfigMap, watch-history entry included", 2 * KIB, "bytes"),
    "deployment": (
        f"one Deployment of {DEPLOYMENT_REPLICAS} echo pods beyond {DEPLOYMENT_REPLICAS} bare pods",
        DEPLOYMENT_TARGET,
        "bytes",
    ),
    "rollout": ("one rollout (set image): the old ReplicaSet kept as revision history", ROLLOUT_TARGET, "bytes"),
    "metrics_node": ("the metrics API's record of one node", METRICS_NODE_TARGET, "bytes"),
    "metrics_pod": ("the metrics API's record of one pod (one container)", METRICS_POD_TARGET, "bytes"),
    "controllers_stack": ("peak stack of the thread the controllers run on (scheduler), of its budget", 1.0, "ratio"),
    "metrics_stack": ("peak stacks of the threads the metrics take (heartbeat, API), of their budgets", 1.0, "ratio"),
    "stacks": ("every thread's peak stack within its budget", 0, "threads over"),
}
# The kinds of thread (STATUS's stack rows) the workload controllers and the metrics API run on:
# the controllers and the garbage collector on the scheduler's loop; a node's usage report is
# made on its heartbeat thread and taken, like kubectl top's reads, on an API connection's.
CONTROLLER_THREADS = ("scheduler",)
METRICS_THREADS = ("heartbeat", "api")
