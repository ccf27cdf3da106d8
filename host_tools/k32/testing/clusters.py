"""Start throw-away clusters for tests (tests/conftest.py, hil/): a temporary state dir, a free
port range and a private kubeconfig, so a user's cluster and ~/.kube/config are never touched.

$K32_TEST_BOARDS=CP[,WORKER] (what `pytest --board-mode` sets: s3,esp32) starts every test
cluster that does not name its boards in board mode; every cluster's thread peaks are read
as it stops (stack_peaks.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from k32.sim.cluster import BOARD, SimCluster, SimError, find_free_base_port, layout, layout_free

from .stack_peaks import RECORDED

KUBECONFIG_NAME = "kubeconfig"
BOARDS_ENV = "K32_TEST_BOARDS"


def boards_for_tests() -> tuple[str, str]:
    """(control plane's board, workers' board) for test clusters: $K32_TEST_BOARDS or the
    default simulator profile for both."""
    raw = os.environ.get(BOARDS_ENV, "").strip()
    if not raw:
        return BOARD, BOARD
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) > 2 or not all(parts):
        raise SimError(f"${BOARDS_ENV}={raw!r}: expected CONTROL_PLANE_BOARD[,WORKER_BOARD], e.g. s3,esp32")
    return parts[0], parts[-1]


def board_mode() -> bool:
    """Whether test clusters run under a board's budgets rather than the simulator's."""
    return boards_for_tests() != (BOARD, BOARD)


class TestCluster(SimCluster):
    """A SimCluster whose thread peaks are recorded every time it stops."""

    __test__ = False  # not a pytest test class
    # make_test_cluster chose the ports because they were free; they may move before the
    # first start (up), never after (again() keeps them, as a rebooted board does).
    ports_may_move = False

    def up(self, on_progress=None) -> dict:
        if self.ports_may_move:
            # A first start can build the node binaries for minutes before it binds, and
            # ports that were free when chosen get taken meanwhile (outgoing connections draw
            # theirs from the same range): build first, then move to free ports if needed.
            self.ports_may_move = False
            self._binary(on_progress or (lambda msg: None))
            if not layout_free(self.nodes):
                self.base_port = find_free_base_port(self.workers)
                self.nodes = layout(self.workers, self.base_port)
        return super().up(on_progress)

    def down(self) -> list[str]:
        try:
            RECORDED.record(self)
        except OSError as e:  # the state dir went away under us: nothing to read
            RECORDED.unread.append(f"{self.state}: {e}")
        return super().down()

    def again(self, **overrides) -> TestCluster:
        """The same cluster (state dir, ports, kubeconfig, boards) as a new object, e.g. to
        start it again after `down` as a rebooted board would come back."""
        kwargs = {
            "workers": len(self.nodes) - 1,
            "base_port": self.base_port,
            "token": self.token,
            "kubeconfig": self.kubeconfig,
            "die_with_parent": True,
            "egress_ca": self.egress_ca,
            "board": self.board,
            "worker_board": self.worker_board,
            "m32": self.m32,
            "sd_dir": self.sd_dir,
        }
        kwargs.update(overrides)
        return TestCluster(self.state, **kwargs)


def make_test_cluster(
    state_dir: Path,
    workers: int = 2,
    token: str | None = None,
    egress_ca: Path | None = None,
    board: str | None = None,
    worker_board: str | None = None,
    m32: bool = False,
    sd_dir: Path | None = None,
) -> TestCluster:
    """A cluster (not yet up) in `state_dir`, with its own kubeconfig inside it. Without
    `board`, the boards come from $K32_TEST_BOARDS (default: the simulator profile); `m32`
    runs nodes built as 32-bit programs (the boards' pointer size); `sd_dir` is the card
    every node serves wasm://sd/ images from."""
    state_dir = Path(state_dir)
    if board is None:
        board, default_worker = boards_for_tests()
        worker_board = worker_board or default_worker
    cluster = TestCluster(
        state_dir,
        workers=workers,
        base_port=find_free_base_port(workers),
        token=token,
        kubeconfig=state_dir / KUBECONFIG_NAME,
        die_with_parent=True,
        egress_ca=egress_ca,
        board=board,
        worker_board=worker_board,
        m32=m32,
        sd_dir=sd_dir,
    )
    cluster.ports_may_move = True
    return cluster


def k8s_api_client(cluster: SimCluster):
    """An official `kubernetes` ApiClient for the cluster's kubeconfig context."""
    from kubernetes import config

    return config.new_client_from_config(config_file=str(cluster.kubeconfig), context=cluster.context)


def make_test_pki(directory: Path) -> dict:
    """A test CA and a server certificate it signs for localhost and 127.0.0.1 (ECDSA P-256,
    valid from yesterday for 30 days): {"ca": ca.pem, "cert": server.crt, "key": server.key}.
    The simulator trusts the CA with --egress-ca; a local HTTPS server presents the leaf."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)

    def name(cn):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def cert(subject, key, issuer, issuer_key, ca, sans=()):
        b = (
            x509.CertificateBuilder()
            .subject_name(name(subject))
            .issuer_name(name(issuer))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if sans:
            b = b.add_extension(x509.SubjectAlternativeName(list(sans)), critical=False)
        return b.sign(issuer_key, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    ca = cert("kube32 test CA", ca_key, "kube32 test CA", ca_key, True)
    leaf = cert(
        "localhost",
        leaf_key,
        "kube32 test CA",
        ca_key,
        False,
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.IPv4Address("127.0.0.1"))],
    )
    out = {"ca": directory / "ca.pem", "cert": directory / "server.crt", "key": directory / "server.key"}
    out["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    out["cert"].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    out["key"].write_bytes(
        leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return out


def api_json(c: SimCluster, method: str, path: str, body=None) -> tuple[int, dict]:
    """(status, JSON body or {}) of one API request to cluster `c`, the body sent as JSON."""
    data = json.dumps(body).encode() if body is not None else None
    status, _, raw = c.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else None)
    return status, (json.loads(raw) if raw.strip() else {})


def memory_quantity(q: str) -> int:
    """A Kubernetes memory quantity (`64Ki`, `1Mi`, `512`) in bytes."""
    units = {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}
    return int(q[:-2]) * units[q[-2:]] if q[-2:] in units else int(q)
