"""Shared fixtures. `sim_cluster` is one detached simulated cluster for the whole session;
`sim_factory` starts extra clusters for tests that must break or restart theirs."""

import pytest

from k32.testing.clusters import k8s_api_client, make_test_cluster

# pytest calls a failed session fixture again for every test that uses it; a cluster that
# cannot start (say, the firmware does not build) is tried once and its error repeated.
_start_failure: list[str] = []


@pytest.fixture(scope="session")
def sim_cluster(tmp_path_factory):
    """A running 1 control plane + 2 workers cluster: .kubeconfig, .context, .state, .status(),
    .api_url, .request(...), .kubectl(*args, version="1.37"|"1.20")."""
    if _start_failure:
        pytest.fail(f"sim_cluster did not start (first attempt): {_start_failure[0]}")
    cluster = make_test_cluster(tmp_path_factory.mktemp("sim"), workers=2)
    try:
        cluster.up()
    except Exception as e:
        _start_failure.append(str(e))
        raise
    yield cluster
    cluster.down()


@pytest.fixture(scope="session")
def k8s_client(sim_cluster):
    """The official Python client's ApiClient bound to sim_cluster."""
    client = k8s_api_client(sim_cluster)
    yield client
    client.close()


@pytest.fixture
def sim_factory(tmp_path_factory):
    """Call sim_factory(workers=N, token=T) for a private cluster (not yet up); every cluster
    made is stopped at the end of the test."""
    made = []

    def make(workers=0, token=None):
        cluster = make_test_cluster(tmp_path_factory.mktemp("simx"), workers=workers, token=token)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.down()
