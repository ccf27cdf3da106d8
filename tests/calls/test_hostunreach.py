"""K32_ERR_HOSTUNREACH (-113) over a real socket: the call runs in a network namespace of
its own whose only route to the target is `unreachable`, so the kernel refuses the connect
with EHOSTUNREACH and not a single packet leaves the machine."""

import json
import shutil
import subprocess

import pytest

HOSTUNREACH = -113


def test_no_route_is_hostunreach(k32_call):
    if not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("needs unshare and ip (util-linux, iproute2)")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot create a network namespace here: {probe.stderr.decode().strip()}")
    script = f"ip link set lo up && ip route add unreachable 203.0.113.0/24 && exec {k32_call} call http://203.0.113.1/"
    p = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    [line] = [out for out in p.stdout.splitlines() if out.startswith("{")]
    assert json.loads(line)["rc"] == HOSTUNREACH
