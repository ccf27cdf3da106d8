"""Start throw-away clusters for tests (tests/conftest.py, hil/): a temporary state dir, a free
port range and a private kubeconfig, so a user's cluster and ~/.kube/config are never touched."""

from __future__ import annotations

from pathlib import Path

from k32.sim.cluster import SimCluster, find_free_base_port

KUBECONFIG_NAME = "kubeconfig"


def make_test_cluster(
    state_dir: Path,
    workers: int = 2,
    token: str | None = None,
    egress_ca: Path | None = None,
    board: str = "sim",
    worker_board: str | None = None,
) -> SimCluster:
    """A SimCluster (not yet up) in `state_dir`, with its own kubeconfig inside it."""
    state_dir = Path(state_dir)
    return SimCluster(
        state_dir,
        workers=workers,
        base_port=find_free_base_port(workers),
        token=token,
        kubeconfig=state_dir / KUBECONFIG_NAME,
        die_with_parent=True,
        egress_ca=egress_ca,
        board=board,
        worker_board=worker_board,
    )


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
