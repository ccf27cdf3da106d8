"""k32_http_call to plain-HTTP hosts outside the cluster, over real sockets: every
return code such a call can give (docs/abi.md), header rules, 1xx, redirects and head limits."""

import json

from calls_helpers import free_port, run_call

K32_ERR = dict(PERM=-1, NOENT=-2, IO=-5, TOOBIG=-7, INVAL=-22, TIMEOUT=-110, CONNREFUSED=-111)


def url(server, path):
    return f"http://127.0.0.1:{server.port}{path}"


def test_status_and_body(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/ok"))
    assert (r.rc, r.status, r.body) == (200, 200, "hello")


def test_post_body_and_method(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/echo"), "-X", "POST", "-d", "payload")
    assert (r.rc, r.body) == (201, "POST payload")


def test_header_forwarding_rules(k32_call, http_server):
    [r], _ = run_call(
        k32_call,
        url(http_server, "/headers"),
        "-H",
        "X-Custom: yes",
        "-H",
        "X-Kube32-Pod: evil/pod",
        "-H",
        "Connection: keep-alive",
        "-H",
        "Host: spoofed",
        "-H",
        "Transfer-Encoding: chunked",
        "-H",
        "Expect: 100-continue",
        "-H",
        "TE: trailers",
        "-H",
        "Upgrade: h2c",
        "-H",
        "Keep-Alive: 5",
    )
    got = json.loads(r.body)
    assert got["x-custom"] == "yes"
    assert got["host"] == f"127.0.0.1:{http_server.port}"
    assert got["connection"] == "close"
    for dropped in ("x-kube32-pod", "transfer-encoding", "expect", "te", "upgrade", "keep-alive"):
        assert dropped not in got


def test_chunked_and_read_to_close(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/chunked"))
    assert (r.rc, r.body) == (200, "hello world")
    [r], _ = run_call(k32_call, url(http_server, "/to-close"))
    assert (r.rc, r.body) == (200, "until the end")


def test_toobig_copies_first_bytes_and_keeps_status(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/big"), "--cap", "100")
    assert (r.rc, r.status, r.len, r.body) == (K32_ERR["TOOBIG"], 200, 100, "x" * 100)
    [r], _ = run_call(k32_call, url(http_server, "/chunked-big"), "--cap", "1500")
    assert (r.rc, r.status, r.len) == (K32_ERR["TOOBIG"], 200, 1500)
    [r], _ = run_call(k32_call, url(http_server, "/big"), "--cap", "10000")
    assert (r.rc, r.len) == (200, 10000)  # exactly resp_cap fits


def test_timeout_bounds_the_whole_call(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/slow"), "--timeout", "400")
    assert r.rc == K32_ERR["TIMEOUT"]
    assert r.ms < 1500


def test_connrefused(k32_call):
    [r], _ = run_call(k32_call, f"http://127.0.0.1:{free_port()}/")
    assert r.rc == K32_ERR["CONNREFUSED"]


def test_noent_for_unknown_names(k32_call):
    [r], _ = run_call(k32_call, "http://no-such-host.invalid/")
    assert r.rc == K32_ERR["NOENT"]
    [r], _ = run_call(k32_call, "http://no-such-service/")  # a Service name in the caller's namespace
    assert r.rc == K32_ERR["NOENT"]
    [r], _ = run_call(k32_call, "http://svc.ns.svc.cluster.local/")
    assert r.rc == K32_ERR["NOENT"]


def test_inval(k32_call):
    for bad in ("ftp://x/", "http://", "http://a b/", "http://h:0/", "http://h:99999/", "http://u@h/"):
        [r], _ = run_call(k32_call, bad)
        assert r.rc == K32_ERR["INVAL"], bad
    [r], _ = run_call(k32_call, "http://127.0.0.1:1/", "-H", "no colon here")
    assert r.rc == K32_ERR["INVAL"]
    [r], _ = run_call(k32_call, "http://127.0.0.1:1/", "-X", "get me")
    assert r.rc == K32_ERR["INVAL"]


def test_interim_responses_are_skipped(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/interim"))
    assert (r.rc, r.body) == (200, "final")


def test_redirects_return_as_they_are(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/redirect"))
    assert r.rc == 302


def test_response_head_limits(k32_call, http_server):
    # Control plane: 8 KiB of head; workers: 1 KiB.
    [r], _ = run_call(k32_call, url(http_server, "/head/7000"))
    assert r.rc == 200
    [r], _ = run_call(k32_call, url(http_server, "/head/9000"))
    assert r.rc == K32_ERR["IO"]
    [r], _ = run_call(k32_call, url(http_server, "/head/500"), "--worker")
    assert r.rc == 200
    [r], _ = run_call(k32_call, url(http_server, "/head/1100"), "--worker")
    assert r.rc == K32_ERR["IO"]


def test_broken_responses_are_io(k32_call, http_server):
    [r], _ = run_call(k32_call, url(http_server, "/garbage"))
    assert r.rc == K32_ERR["IO"]
    [r], _ = run_call(k32_call, url(http_server, "/cut"))
    assert r.rc == K32_ERR["IO"]
