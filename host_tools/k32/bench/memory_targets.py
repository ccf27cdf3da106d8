"""What `k32 bench memory` measures and the targets it judges: the one place these numbers are
written. The workload (how many apps, rounds, the ConfigMap's size, the Deployment's replicas)
and the targets are those of the memory diet for the control plane on the S3 board profile,
measured on the 32-bit build (the boards' pointer size, so every structure has the board's
size)."""

from __future__ import annotations

KIB = 1024

BOARD = "s3"  # the control-plane board whose budgets the node runs with
APPS = 10  # Pod + Service + Ingress each
ROUNDS = 5  # delete-and-re-apply rounds of the apps
ECHO_IMAGE = "wasm://embedded/echo"
POD_MEMORY_LIMIT = "64Ki"
CONFIGMAP_BYTES = 1024  # the data of one ConfigMap, in bytes
DEPLOYMENT_REPLICAS = 5
METRICS_REQUESTS = 20  # GETs of the metrics API's nodes and pods lists, each
# The idle figure is judged with the watch history full, as an idle node lives within minutes
# (each Node status heartbeat leaves its previous version, about 1.6 KB, in the history). The
# bench fills it at once the same way: one ConfigMap of about a Node status's size, updated
# until the history holds its budget, then deleted.
HISTORY_FILL_BYTES = 1536
# Objects made for one marginal cost: the heap moves by a few hundred bytes between two quiet
# samples (a heartbeat's buffers), so the cost of one object is the slope over several.
MARGINAL_OBJECTS = {"pod": 3, "service": 5, "ingress": 5, "configmap": 10}

# name -> (what, limit, unit): "bytes" limits a measured figure; "ratio" limits the largest
# relative change of the with-apps figure across the rounds from the first one.
TARGETS = {
    "idle_internal": ("control plane idle, watch history full, internal heap", 64 * KIB, "bytes"),
    "apps_internal": (f"with {APPS} apps, internal heap not counting the pods' linear memory", 256 * KIB, "bytes"),
    "churn": (f"with {APPS} apps after {ROUNDS} delete/re-apply rounds, change from the first", 0.10, "ratio"),
    "configmap": (f"one {CONFIGMAP_BYTES}-byte ConfigMap, watch-history entry included", 2 * KIB, "bytes"),
    "stacks": ("every thread's peak stack within its budget", 0, "threads over"),
}
