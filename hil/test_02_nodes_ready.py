"""Every node registers and turns Ready, as kubectl shows it."""
import time


def test_all_nodes_ready(target, cluster):
    want = 1 + target.worker_count
    deadline = time.monotonic() + 60
    ready = {}
    while time.monotonic() < deadline:
        ready = cluster.nodes_ready()
        if sum(ready.values()) >= want:
            break
        time.sleep(1)
    assert sum(ready.values()) >= want, ready
    out = cluster.kubectl("get", "nodes", "--no-headers")
    assert out.returncode == 0, out.stderr
    lines = [l.split() for l in out.stdout.splitlines() if l.strip()]
    assert len(lines) >= want and all(l[1] == "Ready" for l in lines), out.stdout


def test_status_matches_the_api(target, cluster):
    st = target.cp.command("STATUS")
    assert st["role"] == "control-plane"
    assert st["name"] in cluster.nodes_ready()
