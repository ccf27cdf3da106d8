"""Start throw-away clusters for tests (tests/conftest.py, hil/): a temporary state dir, a free
port range and a private kubeconfig, so a user's cluster and ~/.kube/config are never touched."""
from __future__ import annotations

from pathlib import Path

from .cluster import SimCluster, find_free_base_port

KUBECONFIG_NAME = "kubeconfig"


def make_test_cluster(state_dir: Path, workers: int = 2, token: str | None = None,
                      egress_ca: Path | None = None) -> SimCluster:
    """A SimCluster (not yet up) in `state_dir`, with its own kubeconfig inside it."""
    state_dir = Path(state_dir)
    return SimCluster(state_dir, workers=workers, base_port=find_free_base_port(workers),
                      token=token, kubeconfig=state_dir / KUBECONFIG_NAME, die_with_parent=True,
                      egress_ca=egress_ca)


def k8s_api_client(cluster: SimCluster):
    """An official `kubernetes` ApiClient for the cluster's kubeconfig context."""
    from kubernetes import config
    return config.new_client_from_config(config_file=str(cluster.kubeconfig),
                                         context=cluster.context)
