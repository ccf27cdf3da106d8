"""`k32 sim up/status/down` as a user runs them, against the real k32-node binary."""

import json
import os
import signal
import subprocess
import sys
import threading

import pytest
import yaml

from k32.sim import procs
from k32.sim.cluster import find_free_base_port, layout
from k32.testing.poll import poll_until

FOLLOWING = "following node logs"  # `k32 sim up` (foreground) prints it once a signal stops it

OTHER_CONFIG = {
    "apiVersion": "v1",
    "kind": "Config",
    "current-context": "prod",
    "clusters": [{"name": "prod", "cluster": {"server": "https://prod.example:6443"}}],
    "users": [{"name": "prod", "user": {"token": "prod-token"}}],
    "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "prod"}}],
}


@pytest.fixture
def env(tmp_path):
    """A private HOME and KUBECONFIG (whose first entry already holds another context)."""
    kubeconfig = tmp_path / "kube" / "config"
    kubeconfig.parent.mkdir()
    kubeconfig.write_text(yaml.safe_dump(OTHER_CONFIG))
    e = dict(
        os.environ, HOME=str(tmp_path / "home"), KUBECONFIG=os.pathsep.join([str(kubeconfig), str(tmp_path / "second")])
    )
    e["_state"] = str(tmp_path / "state")
    return e


class Output:
    """Collects a running process's stdout and stderr as they come (so neither pipe fills)."""

    def __init__(self, proc):
        self.proc, self.out, self.err = proc, [], []
        self.threads = [
            threading.Thread(target=self._read, args=(stream, into), daemon=True)
            for stream, into in ((proc.stdout, self.out), (proc.stderr, self.err))
        ]
        for t in self.threads:
            t.start()

    @staticmethod
    def _read(stream, into):
        for line in stream:
            into.append(line)

    def says(self, text: str) -> bool:
        return any(text in line for line in self.out)

    def wait(self, timeout: float) -> tuple[str, str]:
        self.proc.wait(timeout=timeout)
        for t in self.threads:
            t.join(timeout=10)
        return "".join(self.out), "".join(self.err)


def k32(env, *args, timeout=180):
    clean = {k: v for k, v in env.items() if not k.startswith("_")}
    return subprocess.run(
        [sys.executable, "-m", "k32.cli", *args], env=clean, timeout=timeout, capture_output=True, text=True
    )


def status(env):
    proc = k32(env, "sim", "status", "--json", "--state", env["_state"])
    return json.loads(proc.stdout)


@pytest.mark.slow
def foreground_up(env, workers):
    """`k32 sim up` without --detach, once it follows the nodes' logs: (process, its Output).
    The caller ends the process."""
    clean = {k: v for k, v in env.items() if not k.startswith("_")}
    argv = ["sim", "up", "--workers", str(workers), "--state", env["_state"]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "k32.cli", *argv, "--base-port", str(find_free_base_port(workers))],
        env=clean,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    output = Output(proc)
    try:
        poll_until(lambda: output.says(FOLLOWING) or proc.poll() is not None, 120, "sim up following logs")
        assert proc.poll() is None, output.wait(10)
    except BaseException:
        proc.kill()
        raise
    return proc, output


def test_up_status_down(env):
    base = find_free_base_port(2)
    state = env["_state"]
    up = k32(env, "sim", "up", "--detach", "--state", state, "--base-port", str(base))
    try:
        assert up.returncode == 0, up.stderr
        st = status(env)
        assert st["running"] is True
        kubeconfig = env["KUBECONFIG"].split(os.pathsep)[0]
        assert st["kubeconfig"] == kubeconfig and st["context"] == "kube32"
        expected = layout(2, base)
        assert [n["name"] for n in st["nodes"]] == [n.name for n in expected]
        for got, want in zip(st["nodes"], expected):
            for key in ("name", "role", "ip", "apiPort", "ingressPort", "podPort", "console", "bundle", "pid"):
                assert key in got, key
            assert got["role"] == want.role and got["ip"] == want.ip
            assert got["podPort"] == want.pod_port and got["console"] == want.console
        assert st["nodes"][0]["apiPort"] == base
        assert f":{base}" in up.stdout  # it printed where the API listens

        doc = yaml.safe_load(open(kubeconfig))
        assert doc["current-context"] == "prod"  # never taken over
        assert {c["name"] for c in doc["contexts"]} == {"prod", "kube32"}
        server = next(c for c in doc["clusters"] if c["name"] == "kube32")["cluster"]["server"]
        assert server.endswith(f"://127.0.0.1:{base}")
        assert not os.path.exists(os.path.join(env["HOME"], ".kube", "config"))

        again = k32(env, "sim", "up", "--detach", "--state", state, "--base-port", str(base))
        assert again.returncode != 0 and "already running" in again.stderr
    finally:
        down = k32(env, "sim", "down", "--state", state)
    assert down.returncode == 0, down.stderr
    for n in st["nodes"]:
        assert n["name"] in down.stdout
    poll_until(
        lambda: all(procs.start_time(n["pid"]) is None or procs.is_zombie(n["pid"]) for n in st["nodes"]),
        10,
        "every node process gone after sim down",
    )
    assert status(env)["nodes"] == []


@pytest.mark.slow
def test_down_never_kills_a_recycled_pid(env):
    base = find_free_base_port(0)
    state = env["_state"]
    assert (
        k32(env, "sim", "up", "--detach", "--workers", "0", "--state", state, "--base-port", str(base)).returncode == 0
    )
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        sim_file = os.path.join(state, "sim.json")
        rec = json.load(open(sim_file))
        real = rec["nodes"][0]
        # Pretend the node died and its pid now belongs to an unrelated process.
        rec["nodes"].append(dict(real, name="impostor", pid=decoy.pid, startTime="0"))
        json.dump(rec, open(sim_file, "w"))
        down = k32(env, "sim", "down", "--state", state)
        assert down.returncode == 0, down.stderr
        assert "impostor" not in down.stdout
        assert decoy.poll() is None, "down killed a process it did not start"
        assert not procs.alive(real["pid"], real["startTime"])
    finally:
        decoy.kill()
        decoy.wait()
        k32(env, "sim", "down", "--state", state)


@pytest.mark.slow
def test_busy_port_is_a_clear_error(env):
    import socket

    base = find_free_base_port(1)
    ingress = layout(1, base)[0].ingress_port
    with socket.socket() as s:
        s.bind(("127.0.0.1", ingress))
        s.listen()
        up = k32(env, "sim", "up", "--detach", "--workers", "1", "--state", env["_state"], "--base-port", str(base))
    assert up.returncode != 0
    assert f"port busy: kube32-control-plane 127.0.0.1:{ingress}" in up.stderr, up.stderr
    assert status(env)["nodes"] == []


@pytest.mark.slow
def test_node_exiting_early_names_it_and_shows_its_log(env, tmp_path):
    fake = tmp_path / "crashing-node"
    fake.write_text("#!/bin/sh\necho 'fatal: cannot open state store' >&2\nexit 3\n")
    fake.chmod(0o755)
    env = dict(env, K32_NODE_BINARY=str(fake))
    up = k32(
        env,
        "sim",
        "up",
        "--detach",
        "--workers",
        "1",
        "--state",
        env["_state"],
        "--base-port",
        str(find_free_base_port(1)),
    )
    assert up.returncode != 0
    assert "kube32-control-plane exited early (exit code 3)" in up.stderr, up.stderr
    assert "fatal: cannot open state store" in up.stderr
    assert status(env)["nodes"] == []


@pytest.mark.slow
def test_foreground_up_stops_on_sigterm(env):
    proc, output = foreground_up(env, workers=1)
    try:
        st = status(env)
        assert st["running"] and len(st["nodes"]) == 2, st
        pids = [(n["pid"], procs.start_time(n["pid"])) for n in st["nodes"]]
        proc.send_signal(signal.SIGTERM)
        out, err = output.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert FOLLOWING in out
    assert not any(procs.alive(pid, started) for pid, started in pids), err
    assert status(env)["nodes"] == []


@pytest.mark.slow
def test_foreground_up_ends_quietly_on_sim_down(env):
    proc, output = foreground_up(env, workers=0)
    try:
        assert k32(env, "sim", "down", "--state", env["_state"]).returncode == 0
        out, err = output.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped by `k32 sim down`" in err


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG)")
def test_test_clusters_die_with_their_test_process(tmp_path):
    code = (
        "import sys, time; from k32.testing.clusters import make_test_cluster\n"
        "c = make_test_cluster(sys.argv[1], workers=0); c.up()\n"
        "print(c.status()['nodes'][0]['pid'], c.status()['nodes'][0]['pid'] and "
        "__import__('k32.sim.procs', fromlist=['x']).start_time(c.status()['nodes'][0]['pid']),"
        " flush=True)\ntime.sleep(120)\n"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path / "st")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = runner.stdout.readline().split()
        assert len(line) == 2, runner.stderr.read() if runner.poll() is not None else line
        pid, started = int(line[0]), line[1]
        assert procs.alive(pid, started)
        runner.kill()  # like a CI job killed mid-test: no teardown runs
        runner.wait()
        poll_until(
            lambda: not procs.alive(pid, started), 10, "the test cluster's node gone once its test process was killed"
        )
    finally:
        if runner.poll() is None:
            runner.kill()
