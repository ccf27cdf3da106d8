"""https:// calls from the control plane against local HTTPS servers with a test CA:
good certificate, wrong host, expired, untrusted, TLS 1.3 only, and BUSY sessions."""

import pytest
from calls_helpers import run_call

CERT, TLS, BUSY, TOOBIG = -129, -71, -16, -7


def call(k32_call, pki, server, path="/ok", *args, host="localhost"):
    return run_call(k32_call, f"https://{host}:{server.port}{path}", "--ca", str(pki.ca_pem), *args)


def test_good_certificate_by_name_and_ip(k32_call, pki, https_servers):
    [r], _ = call(k32_call, pki, https_servers["good"])
    assert (r.rc, r.body) == (200, "hello")
    [r], _ = call(k32_call, pki, https_servers["good"], host="127.0.0.1")
    assert r.rc == 200


def test_https_toobig(k32_call, pki, https_servers):
    [r], _ = call(k32_call, pki, https_servers["good"], "/big", "--cap", "10")
    assert (r.rc, r.status, r.len) == (TOOBIG, 200, 10)


def test_untrusted_without_the_test_ca(k32_call, https_servers):
    [r], err = run_call(k32_call, f"https://localhost:{https_servers['good'].port}/ok")
    assert r.rc == CERT
    assert "certificate rejected" in err


def test_refused_certificates_log_the_reason(k32_call, pki, https_servers):
    for name in ("wrong_host", "expired", "untrusted"):
        [r], err = call(k32_call, pki, https_servers[name], "/ok", "--pod", "default/probe")
        assert r.rc == CERT, name
        port = https_servers[name].port
        assert f"[EGRESS] default/probe -> https://localhost:{port}: certificate rejected: " in err, err


def test_ip_host_must_be_named_by_the_certificate(k32_call, pki, https_servers):
    [r], _ = call(k32_call, pki, https_servers["wrong_host"], host="127.0.0.1")
    assert r.rc == CERT


def test_tls13_only_server_fails_the_handshake(k32_call, pki, https_servers):
    [r], _ = call(k32_call, pki, https_servers["tls13"])
    assert r.rc == TLS


def test_cert_log_is_rate_limited(k32_call, pki, https_servers):
    rs, err = call(k32_call, pki, https_servers["expired"], "/ok", "--repeat", "4")
    assert [r.rc for r in rs] == [CERT] * 4
    assert err.count("certificate rejected") == 1


@pytest.mark.slow
def test_busy_when_both_sessions_are_in_use(k32_call, pki, https_servers):
    rs, _ = call(k32_call, pki, https_servers["good"], "/slow", "--parallel", "3", "--timeout", "10000")
    codes = sorted(r.rc for r in rs)
    assert codes == [BUSY, 200, 200], codes
    busy = [r for r in rs if r.rc == BUSY][0]
    assert busy.ms < 1000  # at once, not after waiting
