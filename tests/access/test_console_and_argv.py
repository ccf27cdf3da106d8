"""The simulator's console stands in for a board's UART: only the user who started the
node may use it, at most CONSOLE_CONN_MAX connections at a time (boards/common.yaml), each
closed after CONSOLE_IDLE_MS without a line, and
`k32 provision` keeps working over pyserial's socket:// URL. The API token never appears
in a node's command line."""

import json
import os
import socket
import time

import pytest
from click.testing import CliRunner

from k32.boards import load_common
from k32.cli import main
from k32.testing.sockets import recv_until

TOKEN = "argv-Secret_t0ken"
NOBODY = 65534


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from k32.testing.clusters import make_test_cluster

    c = make_test_cluster(tmp_path_factory.mktemp("console"), workers=1, token=TOKEN)
    c.up()
    yield c
    c.down()


def console_address(cluster, role="control-plane"):
    node = next(n for n in cluster.status()["nodes"] if n["role"] == role)
    host, port = node["console"].rsplit(":", 1)
    return host, int(port)


def exchange(addr, line: bytes, timeout=5.0) -> bytes:
    """Sends one line, returns everything up to the first answer line (or the close)."""
    with socket.create_connection(addr, timeout=timeout) as s:
        s.sendall(line)
        return recv_until(s, b"\n")


def as_other_user(fn) -> bytes:
    """fn() in a forked child running as user nobody; its bytes (or the error) come back."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: only syscalls, then _exit
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            out = fn()
        except BaseException as e:  # noqa: BLE001 - reported to the parent as text
            out = f"child failed: {e!r}".encode()
        os.write(w, out)
        os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks)


def test_token_is_not_on_any_command_line(cluster):
    pids = [n["pid"] for n in cluster.running_nodes()]
    assert len(pids) == 2
    for pid in pids:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
        assert b"k32-node" in cmdline
        assert TOKEN.encode() not in cmdline, cmdline
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
        assert TOKEN.encode() not in environ
    for spec in cluster.nodes:
        assert cluster.token_file(spec.name).stat().st_mode & 0o777 == 0o600
    # The token still works: the API asks for it, the nodes are Ready with it.
    assert cluster.request("GET", "/api/v1/nodes", token=None)[0] == 401
    assert cluster.kubectl("get", "nodes").returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root")
def test_console_refuses_other_users(cluster):
    for role in ("control-plane", "worker"):
        host, port = console_address(cluster, role)
        # Another local user tries to switch the token off.
        answer = as_other_user(lambda a=(host, port): exchange(a, b'K32_CMD:TOKEN {"token":""}\n'))
        assert answer.startswith(b"K32_RESP:? ERR the console serves the user who started this node only"), (
            role,
            answer,
        )
    # Nothing changed: the API still requires the token.
    assert cluster.request("GET", "/api/v1/nodes", token=None)[0] == 401
    # The owner is still served.
    assert exchange(console_address(cluster), b"K32_CMD:STATUS\n").startswith(b"K32_RESP:STATUS OK")


def test_console_connections_are_capped(cluster):
    cap = int(load_common()["CONSOLE_CONN_MAX"])
    addr = console_address(cluster)
    held = [socket.create_connection(addr, timeout=5) for _ in range(cap)]
    try:
        for s in held:  # every held connection is served
            s.sendall(b"K32_CMD:STATUS\n")
            assert recv_until(s, b"\n").startswith(b"K32_RESP:STATUS OK")
        answer = exchange(addr, b"K32_CMD:STATUS\n")
        assert answer.startswith(b"K32_RESP:? ERR console busy"), answer
        held.pop().close()
        # The freed slot is taken again (the node counts the close).
        for _ in range(50):
            answer = exchange(addr, b"K32_CMD:STATUS\n")
            if answer.startswith(b"K32_RESP:STATUS OK"):
                break
        assert answer.startswith(b"K32_RESP:STATUS OK"), answer
    finally:
        for s in held:
            s.close()


def test_one_console_thread_serves_a_stalled_session_and_another(cluster):
    """A board has one console thread; so has the simulator's: it serves CONSOLE_CONN_MAX
    sessions at once, so a session that sent half a line and stalled must not hold up the
    other one, and one more connection is refused as busy."""
    cap = int(load_common()["CONSOLE_CONN_MAX"])
    assert cap == 2, "the test holds one stalled and one answered session"
    for role in ("control-plane", "worker"):
        addr = console_address(cluster, role)
        stalled = socket.create_connection(addr, timeout=5)
        served = socket.create_connection(addr, timeout=5)
        try:
            stalled.sendall(b"K32_CMD:STA")  # half a line, then nothing
            for _ in range(3):  # answered while the other line stays open
                served.sendall(b"K32_CMD:STATUS\n")
                answer = recv_until(served, b"\n")
                assert answer.startswith(b"K32_RESP:STATUS OK {"), (role, answer[:200])
            status = json.loads(answer.split(b" OK ", 1)[1])
            rows = {r["name"]: r for r in status["stacks"]}
            # Both sessions on the one console thread: no thread per session, no accept loop.
            assert rows["console"]["running"] == 1, (role, rows["console"])
            assert "console-accept" not in rows, (role, sorted(rows))
            busy = exchange(addr, b"K32_CMD:STATUS\n")
            assert busy.startswith(b"K32_RESP:? ERR console busy"), (role, busy)
            # The stalled session's line was kept: its end gets the answer.
            stalled.sendall(b"TUS\n")
            assert recv_until(stalled, b"\n").startswith(b"K32_RESP:STATUS OK {"), role
        finally:
            stalled.close()
            served.close()


@pytest.mark.slow  # waits out CONSOLE_IDLE_MS
def test_idle_console_connections_are_closed_and_free_their_slots(cluster):
    """Connections that went quiet (one never sent a byte, one stopped mid-line) would hold
    the console's few slots for good: each is closed CONSOLE_IDLE_MS after its last line."""
    idle_s = int(load_common()["CONSOLE_IDLE_MS"]) / 1000
    cap = int(load_common()["CONSOLE_CONN_MAX"])
    addr = console_address(cluster)
    # Each deadline runs from the connection's accept or its last line, so it falls between
    # opened + idle_s and answered + idle_s; the time the set-up took on a loaded machine
    # (connections, the busy refusal) moves neither bound.
    opened = time.monotonic()
    held = [socket.create_connection(addr, timeout=idle_s + 10) for _ in range(cap)]
    try:
        held[0].sendall(b"K32_CMD:STATUS\n")
        assert recv_until(held[0], b"\n").startswith(b"K32_RESP:STATUS OK")
        answered = time.monotonic()
        held[-1].sendall(b"K32_CMD:STA")  # a line that never ends
        assert exchange(addr, b"K32_CMD:STATUS\n").startswith(b"K32_RESP:? ERR console busy")
        for s in held:
            assert s.recv(4096) == b""  # the node closed it (a timeout here: kept past idle_s + 10 s)
        done = time.monotonic()
        assert done - opened >= idle_s - 0.5, f"closed {done - opened:.1f} s after opening, before the idle deadline"
        assert done - answered <= idle_s + 10, done - answered
        answer = b""
        for _ in range(50):  # the node counts the closes
            answer = exchange(addr, b"K32_CMD:STATUS\n")
            if answer.startswith(b"K32_RESP:STATUS OK"):
                break
            time.sleep(0.1)
        assert answer.startswith(b"K32_RESP:STATUS OK"), answer
    finally:
        for s in held:
            s.close()


def test_provision_over_socket_url_still_works(cluster):
    host, port = console_address(cluster, "worker")
    r = CliRunner().invoke(
        main,
        [
            "provision",
            "--port",
            f"socket://{host}:{port}",
            "--wifi",
            "--ssid",
            "lab",
            "--password",
            "12345678",
            "--wait",
            "0",
        ],
    )
    assert r.exit_code == 0, r.output
    assert cluster.console(cluster.nodes[1].name, "STATUS")["wifi"] is True
