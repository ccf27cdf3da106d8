"""The console client against a scripted socket peer (docs/console.md framing)."""

import socket
import threading

import pytest

from k32.sim.console import ConsoleError, command


def serve_once(reply: bytes):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    got = []

    def run():
        conn, _ = srv.accept()
        with conn:
            got.append(conn.recv(4096))
            conn.sendall(reply)
        srv.close()

    threading.Thread(target=run, daemon=True).start()
    return f"127.0.0.1:{srv.getsockname()[1]}", got


def test_ok_answer_after_log_noise():
    addr, got = serve_once(b"[NET] up\nK32_RESP:OTHER OK {}\nK32_RESP:STATUS OK {\"heapBytes\": 5}\n")
    assert command(addr, "STATUS") == {"heapBytes": 5}
    assert got == [b"K32_CMD:STATUS\n"]


def test_argument_is_json():
    addr, got = serve_once(b"K32_RESP:TOKEN OK\n")
    assert command(addr, "TOKEN", {"token": "a b\"c"}) == {}
    assert got == [b'K32_CMD:TOKEN {"token": "a b\\"c"}\n']


@pytest.mark.parametrize(
    "reply, problem",
    [
        (b"K32_RESP:STATUS ERR no such thing\n", "no such thing"),
        (b"K32_RESP:STATUS OK [1]\n", "not a JSON object"),
        (b"K32_RESP:STATUS OK {bad\n", "not JSON"),
        (b"K32_RESP:STATUS MAYBE\n", "malformed"),
        (b"K32_RESP:STATUS OK " + b"[" * 100_000 + b"\n", "not JSON \\(nested too deeply\\)"),
        (b"K32_RESP:STATUS OK NaN\n", "not JSON"),
        (b"partial line without end", "closed before answering"),
    ],
)
def test_bad_answers_are_errors(reply, problem):
    addr, _ = serve_once(reply)
    with pytest.raises(ConsoleError, match=problem):
        command(addr, "STATUS")


def test_bad_address():
    with pytest.raises(ConsoleError, match="HOST:PORT"):
        command("nohost", "STATUS")


def test_an_endless_line_is_cut_and_the_answer_after_it_still_read():
    addr, _ = serve_once(b"x" * 3_000_000 + b"\nK32_RESP:STATUS OK {\"ok\": 1}\n")
    assert command(addr, "STATUS") == {"ok": 1}
