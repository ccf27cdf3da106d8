"""make_test_cluster chooses free ports before the first start, which may build the node
binaries for minutes first: a port taken meanwhile moves the cluster to free ones instead
of failing its start with "port busy"."""

import socket

from k32.testing.clusters import make_test_cluster


def test_a_port_taken_before_the_first_start_moves_the_cluster(tmp_path):
    cluster = make_test_cluster(tmp_path / "c", workers=0)
    cp = cluster.nodes[0]
    taken = socket.socket()
    taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    taken.bind((cp.ip, cp.api_port))
    taken.listen(1)
    try:
        cluster.up()
        try:
            assert cluster.nodes[0].api_port != cp.api_port
            status, _, _ = cluster.request("GET", "/api/v1/nodes")
            assert status == 200
        finally:
            cluster.down()
    finally:
        taken.close()
