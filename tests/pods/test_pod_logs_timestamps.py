"""`kubectl logs --timestamps` through real kubectl: every line starts with the RFC3339 time
(nanosecond fraction) the node logged it at and a space, as kube-apiserver's pods/log answers;
without the flag the lines are the bytes the pod wrote. Checked for a pod on the control plane
(served in process) and one on a worker (proxied to its node's pod server)."""

import re
from datetime import UTC, datetime

import pytest
from pods_helpers import apply, delete, get_pod, nodes, wait_until

STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{9})Z (.*)$")


def _stamped_lines(out: str) -> list[tuple[datetime, str]]:
    lines = out.splitlines()
    assert lines, "no log lines"
    parsed = []
    for line in lines:
        m = STAMP.match(line)
        assert m, f"line without an RFC3339 timestamp: {line!r}"
        t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
        parsed.append((t, m.group(3)))
    return parsed


@pytest.mark.slow
@pytest.mark.parametrize("role", ["control-plane", "worker"])
def test_logs_timestamps(sim_cluster, role):
    node = next(n for n, v in nodes(sim_cluster).items() if v["role"] == role)
    name = f"stamped-{role}"
    apply(
        sim_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeSelector: {{kubernetes.io/hostname: {node}}}
  restartPolicy: Never
  containers: [{{name: hello, image: wasm://embedded/hello}}]
""",
    )
    try:
        assert wait_until(lambda: (q := get_pod(sim_cluster, name)) and q["status"].get("phase") == "Succeeded"), (
            get_pod(sim_cluster, name)
        )
        plain = sim_cluster.kubectl("logs", name)
        assert plain.returncode == 0, plain.stderr
        assert f"hello on stdout from {name}\n" in plain.stdout
        assert not any(STAMP.match(ln) for ln in plain.stdout.splitlines()), plain.stdout

        stamped = sim_cluster.kubectl("logs", name, "--timestamps")
        assert stamped.returncode == 0, stamped.stderr
        now = datetime.now(UTC)
        parsed = _stamped_lines(stamped.stdout)
        for t, _ in parsed:
            assert abs((now - t).total_seconds()) < 60, (t, now)
        assert [text for _, text in parsed] == plain.stdout.splitlines()
        assert [t for t, _ in parsed] == sorted(t for t, _ in parsed)

        # --tail keeps working with the prefix: the last line, stamped.
        last = sim_cluster.kubectl("logs", name, "--timestamps", "--tail", "1")
        assert last.returncode == 0, last.stderr
        assert [text for _, text in _stamped_lines(last.stdout)] == [plain.stdout.splitlines()[-1]]
    finally:
        delete(sim_cluster, name)
