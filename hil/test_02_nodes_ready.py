"""Every node registers and turns Ready, as kubectl shows it."""

from k32.testing.poll import wait_until


def test_all_nodes_ready(target, cluster):
    want = 1 + target.worker_count
    wait_until(lambda: sum(cluster.nodes_ready().values()) >= want, 60, interval=1)
    ready = cluster.nodes_ready()
    assert sum(ready.values()) >= want, ready
    out = cluster.kubectl("get", "nodes", "--no-headers")
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()]
    assert len(rows) >= want and all(row[1] == "Ready" for row in rows), out.stdout


def test_status_matches_the_api(target, cluster):
    st = target.cp.command("STATUS")
    assert st["role"] == "control-plane"
    assert st["name"] in cluster.nodes_ready()
