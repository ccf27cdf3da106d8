"""`k32 provision` over socket:// against a scripted console and against a real sim node."""

import pytest
from click.testing import CliRunner
from fake_console import FakeConsole

from k32.cli import main
from k32.kubeconfig import write_context

SECRET_PASSWORD = "p4ss w\"ord 'quoted' \\ back"
UNICODE_SSID = "Café ☕ net"


@pytest.fixture
def fake():
    made = []

    def make(mode="ok"):
        made.append(FakeConsole(mode))
        return made[-1]

    yield make
    for f in made:
        f.close()


def run(*args, input=None, env=None):
    return CliRunner().invoke(main, ["provision", *args], input=input, env=env)


@pytest.mark.slow
def test_wifi_secret_with_spaces_quotes_and_unicode_ssid_travels_exactly(fake):
    f = fake("noisy")
    r = run("--port", f.url, "--wifi", "--ssid", UNICODE_SSID, "--password", SECRET_PASSWORD, "--wait", "0.5")
    assert r.exit_code == 0, r.output
    assert ("WIFI", {"ssid": UNICODE_SSID, "password": SECRET_PASSWORD}) in f.received
    assert SECRET_PASSWORD not in r.output
    assert "[NET] station connected" in r.output


def test_token_prompted_without_echo(fake):
    f = fake()
    r = run("--port", f.url, "--token", input="tok-123_abc\ntok-123_abc\n")
    assert r.exit_code == 0, r.output
    assert ("TOKEN", {"token": "tok-123_abc"}) in f.received
    assert "tok-123_abc" not in r.output
    assert "bearer-token auth on" in r.output


@pytest.mark.slow
def test_password_prompted_and_env(fake):
    f = fake()
    r = run("--port", f.url, "--wifi", "--ssid", "home", "--wait", "0", input=f"{SECRET_PASSWORD}\n{SECRET_PASSWORD}\n")
    assert r.exit_code == 0, r.output
    assert SECRET_PASSWORD not in r.output
    assert f.state["wifi"] == {"ssid": "home", "password": SECRET_PASSWORD}
    r = run("--port", f.url, "--token", env={"K32_TOKEN": "fromenv"})
    assert r.exit_code == 0 and f.state["token"] == "fromenv"


@pytest.mark.parametrize(
    "args,message",
    [
        (["--token", "has space"], "token: must be"),
        (["--token", 'quo"te'], "token: must be"),
        (["--token", "ünï"], "token: must be"),
        (["--wifi", "--ssid", "x" * 33, "--password", "12345678"], "ssid: must be 1-32 bytes"),
        (["--wifi", "--ssid", "net", "--password", "short"], "password: a WPA2 passphrase has 8-63"),
        (["--wifi", "--ssid", "net", "--password", "pässwörd123"], "password: a WPA2 passphrase is printable ASCII"),
        (["--wifi", "--ssid", "bad\nssid", "--password", "12345678"], "ssid: must not contain control"),
    ],
)
def test_bad_secrets_change_nothing(fake, args, message):
    f = fake()
    r = run("--port", f.url, *args)
    assert r.exit_code != 0
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.output
    assert f.received == []
    for secret in ("has space", "pässwörd123", "ünï"):
        assert secret not in r.output


def test_node_error_is_reported(fake):
    f = fake("err")
    r = run("--port", f.url, "--token", "abc")
    assert r.exit_code != 0
    assert r.output.strip() == "Error: the node refused TOKEN: could not persist"


def test_node_that_never_answers(fake):
    f = fake("silent")
    r = run("--port", f.url, "--token", "abc", "--timeout", "0.5")
    assert r.exit_code != 0
    assert "did not answer TOKEN within 0.5 s" in r.output
    assert "abc" not in r.output


def test_missing_and_busy_port(tmp_path):
    import os

    import serial

    r = run("--port", "/dev/ttyK32-nope", "--token", "abc")
    assert r.exit_code != 0 and "serial port /dev/ttyK32-nope does not exist" in r.output
    r = run("--port", "socket://127.0.0.1:1", "--token", "abc")
    assert r.exit_code != 0 and r.output.startswith("Error: cannot open socket://127.0.0.1:1")
    master, slave = os.openpty()
    path = os.ttyname(slave)
    holder = serial.Serial(path, exclusive=True)
    try:
        r = run("--port", path, "--token", "abc")
    finally:
        holder.close()
        os.close(master)
        os.close(slave)
    assert r.exit_code != 0 and "is busy" in r.output


def test_usage_errors():
    assert "nothing to do" in run("--port", "socket://x:1").output
    assert "exclude each other" in run("--port", "socket://x:1", "--token", "a", "--clear-token").output


@pytest.mark.slow
def test_token_on_a_running_sim_node_then_kubectl_needs_it(sim_factory):
    cluster = sim_factory(workers=0)
    cluster.up()
    cp = cluster.status()["nodes"][0]
    url = f"socket://{cp['console']}"
    assert cluster.kubectl("get", "nodes").returncode == 0
    r = run("--port", url, "--token", "s3cr3t-Token")
    assert r.exit_code == 0, r.output
    assert "s3cr3t-Token" not in r.output
    denied = cluster.kubectl("get", "nodes")
    assert denied.returncode != 0 and "Unauthorized" in denied.stderr, denied.stderr
    assert cluster.request("GET", "/api/v1/nodes", token=None)[0] == 401
    assert cluster.request("GET", "/api/v1/nodes", token="s3cr3t-Token")[0] == 200
    # kubectl sends a bearer token only over TLS (kubernetes/kubectl#744); the API port
    # also speaks TLS, so a kubeconfig with https + the token works
    write_context(cluster.api_url.replace("http://", "https://"), "s3cr3t-Token", cluster.kubeconfig, cluster.context)
    ok = cluster.kubectl("get", "nodes")
    assert ok.returncode == 0 and "Ready" in ok.stdout, ok.stderr
    # a bad token is refused before it reaches the node: the good one still works
    r = run("--port", url, "--token", "bad token")
    assert r.exit_code != 0
    assert cluster.kubectl("get", "nodes").returncode == 0
    # Wi-Fi credentials persist in the sim's state dir and STATUS reports them
    r = run("--port", url, "--wifi", "--ssid", UNICODE_SSID, "--password", SECRET_PASSWORD, "--wait", "1")
    assert r.exit_code == 0, r.output
    assert SECRET_PASSWORD not in r.output
    log = open(cp["log"], encoding="utf-8").read()  # the sim's console TCP port carries
    assert "[NET]" in log and SECRET_PASSWORD not in log  # answers; its logs go to the log file
    r = run("--port", url, "--clear-token")
    assert r.exit_code == 0, r.output
    assert cluster.request("GET", "/api/v1/nodes", token=None)[0] == 200


@pytest.mark.slow
def test_token_and_wifi_persist_across_a_restart(sim_factory):
    from k32.provision import Console
    from k32.sim.cluster import SimCluster

    cluster = sim_factory(workers=0)
    cluster.up()
    url = f"socket://{cluster.status()['nodes'][0]['console']}"
    assert run("--port", url, "--token", "persist-me").exit_code == 0
    assert run("--port", url, "--wifi", "--ssid", "lab", "--password", "12345678", "--wait", "0").exit_code == 0
    cluster.down()

    class NoTokenFlag(SimCluster):
        """Restarts the node without --token (so only its stored token can be in force)
        while this client still sends the token in its readiness checks."""

        def _argv(self, binary, spec):
            argv = super()._argv(binary, spec)
            if "--token-file" in argv:
                i = argv.index("--token-file")
                del argv[i : i + 2]
            return argv

    again = NoTokenFlag(
        cluster.state, workers=0, base_port=cluster.base_port, kubeconfig=cluster.kubeconfig, token="persist-me"
    )
    try:
        again.up()
        with Console(f"socket://{again.status()['nodes'][0]['console']}") as con:
            st = con.command("STATUS")
        assert st["token"] is True and st["wifi"] is True
        assert again.request("GET", "/api/v1/nodes", token=None)[0] == 401
    finally:
        again.down()
