"""Provisioning over the console: the token turns bearer auth on at once, Wi-Fi credentials
are stored and reported with [NET] lines; bad secrets change nothing."""

import pytest
from click.testing import CliRunner

from k32.cli import main

TOKEN = "hil-Token_1.2~3"


def provision(dut, *args):
    return CliRunner().invoke(main, ["provision", "--port", dut.console_url, "--wait", "0", *args])


@pytest.mark.slow
def test_token_on_and_off(target, cluster, dut):
    before = cluster.token
    dut.close()  # `k32 provision` opens the console itself
    r = provision(dut, "--token", TOKEN)
    assert r.exit_code == 0, r.output
    try:
        assert TOKEN not in r.output
        assert cluster.request("GET", "/api/v1/nodes", token=None)[0] == 401
        assert cluster.request("GET", "/api/v1/nodes", token=TOKEN)[0] == 200
        assert dut.command("STATUS")["token"] is True
        dut.close()
        bad = provision(dut, "--token", "two words")
        assert bad.exit_code != 0 and "token: must be" in bad.output
        assert cluster.request("GET", "/api/v1/nodes", token=TOKEN)[0] == 200
    finally:
        dut.close()
        r = provision(dut, *(["--token", before] if before else ["--clear-token"]))
        assert r.exit_code == 0, r.output
    assert cluster.request("GET", "/api/v1/nodes")[0] == 200


def test_wifi_credentials_stored_and_reported(target, dut):
    dut.close()
    r = provision(dut, "--wifi", "--ssid", "Kube32 Lab ☕", "--password", "pass 'with' \"quotes\"")
    assert r.exit_code == 0, r.output
    assert "quotes" not in r.output
    assert dut.command("STATUS")["wifi"] is True
    dut.expect(r"\[NET\] ", timeout=30)


def test_malformed_command_changes_nothing(dut):
    st = dut.command("STATUS")
    with pytest.raises(Exception, match="refused TOKEN"):
        dut.command("TOKEN", {"nope": 1})
    assert dut.command("STATUS")["token"] == st["token"]
