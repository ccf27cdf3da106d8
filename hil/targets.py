"""What the scenarios run against: a simulated cluster started here, or attached boards.

Both expose the same surface: `cluster` (request(), kubectl(), nodes_ready(), api_url),
`cp` and `workers` (Duts), `ingress_url`, `worker_count`, and `reboot_control_plane()`."""

from __future__ import annotations

import json
from pathlib import Path

from dut import Dut
from k32.kubeconfig import write_context
from k32.provision import ProvisionError
from k32.sim.cluster import SimCluster
from k32.testing.clusters import make_test_cluster
from k32.testing.poll import poll_until, wait_until

REBOOT_TIMEOUT = 60.0
REBOOT_GRACE = 1.0  # the node exits ~100 ms after the command; this is the deadline for it


def _send_reboot(dut) -> None:
    """K32_CMD:REBOOT; a node may go down before its answer gets out, which is fine here."""
    try:
        dut.command("REBOOT", timeout=5.0)
    except ProvisionError:
        pass
    dut.close()


def _api_answers(cluster) -> bool:
    try:
        return cluster.request("GET", "/version", timeout=2.0)[0] == 200
    except OSError:
        return False


def _wait_api(cluster, timeout: float) -> None:
    poll_until(lambda: _api_answers(cluster), timeout, f"API server at {cluster.api_url} back", interval=0.3)


def _boot_id(cluster, node: str) -> str | None:
    """The Node's status.nodeInfo.bootID, new with each registration, so each boot; None while
    the API does not answer."""
    try:
        status, _, body = cluster.request("GET", f"/api/v1/nodes/{node}", timeout=5.0)
    except OSError:
        return None
    return json.loads(body)["status"]["nodeInfo"]["bootID"] if status == 200 else None


class SimTarget:
    kind = "sim"

    def __init__(self, state_dir: Path, workers: int, egress_ca: Path | None = None):
        self.cluster = make_test_cluster(state_dir, workers=workers, egress_ca=egress_ca)
        self.worker_count = workers

    def up(self):
        self.cluster.up()
        self._bind()
        return self

    def _bind(self):
        nodes = self.cluster.status()["nodes"]
        duts = [Dut(n["name"], f"socket://{n['console']}", Path(n["log"]) if n.get("log") else None) for n in nodes]
        self.cp, self.workers = duts[0], duts[1:]
        cp = nodes[0]
        self.ingress_url = f"http://{cp['ip']}:{cp['ingressPort']}"

    def reboot_control_plane(self):
        """K32_CMD:REBOOT as on a board. The simulator node exits; its supervisor (the
        cluster) brings it back from the same state dir, as the board's reset does."""
        spec = self.cluster.nodes[0]
        booted = _boot_id(self.cluster, spec.name)
        _send_reboot(self.cp)

        def stopped() -> bool:
            return not next(n for n in self.cluster.status()["nodes"] if n["name"] == spec.name)["running"]

        if wait_until(stopped, REBOOT_GRACE):
            # The simulator node does not re-execute itself (yet): bring it back from its
            # state dir, as a board's reset would.
            restart = getattr(self.cluster, "restart_node", None)
            if restart is not None:
                restart(spec.name)
            else:
                self.cluster.down()
                self.cluster = self.cluster.again(token=None)
                self.cluster.up()
        self._bind()
        # The node answers until it re-executes itself (a moment after its answer, seconds on a
        # loaded machine): done once it registered again, with a new bootID.
        poll_until(
            lambda: _boot_id(self.cluster, spec.name) not in (None, booted),
            REBOOT_TIMEOUT,
            f"{spec.name} registered again after REBOOT",
            interval=0.3,
        )

    def down(self):
        for d in [self.cp, *self.workers]:
            d.close()
        self.cluster.down()


class BoardCluster(SimCluster):
    """SimCluster's client half pointed at a board's API server (nothing is started)."""

    def __init__(self, url: str, token: str | None, kubeconfig: Path):
        super().__init__(kubeconfig.parent / "state", workers=0, token=token, kubeconfig=kubeconfig)
        self._url = url
        self.scheme = url.split("://", 1)[0]
        write_context(url, token, kubeconfig, self.context)

    @property
    def api_url(self) -> str:
        return self._url


class BoardTarget:
    kind = "board"

    def __init__(
        self,
        tmp: Path,
        cp_port: str,
        cp_ip: str,
        worker_ports: list[str],
        api_url: str | None,
        ingress_port: int,
        token: str | None,
    ):
        self.cluster = BoardCluster(api_url or f"https://{cp_ip}:6443", token, tmp / "kubeconfig")
        self.cp = Dut("control-plane", cp_port)
        self.workers = [Dut(f"worker-{i}", p) for i, p in enumerate(worker_ports)]
        self.worker_count = len(worker_ports)
        self.ingress_url = f"http://{cp_ip}" + ("" if ingress_port == 80 else f":{ingress_port}")

    def up(self):
        st = self.cp.command("STATUS")
        if st.get("role") != "control-plane":
            raise AssertionError(f"{self.cp.console_url} is a {st.get('role')}, not the control plane")
        return self

    def reboot_control_plane(self):
        _send_reboot(self.cp)
        # The API answers until the board resets: see it go away, then come back.
        poll_until(
            lambda: not _api_answers(self.cluster),
            REBOOT_GRACE + 5.0,
            f"API server at {self.cluster.api_url} gone after REBOOT",
            interval=0.1,
        )
        _wait_api(self.cluster, REBOOT_TIMEOUT)

    def down(self):
        for d in [self.cp, *self.workers]:
            d.close()
