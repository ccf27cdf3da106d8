"""A node's console output is outside input to the host tools: lines are cut at
CONSOLE_ANSWER_MAX with the rest dropped (a port that never sends a newline cannot grow a
buffer), and an answer that is not one JSON object is a clear error, never a traceback."""

import socket
import threading

import pytest

from k32.boards import load_common
from k32.console_lines import LineSplitter, MalformedAnswer, NodeRefused, parse_answer
from k32.provision.console import Console, ProvisionError

MAX = int(load_common()["CONSOLE_ANSWER_MAX"])


def test_lines_are_cut_and_the_rest_dropped():
    s = LineSplitter()
    assert s.feed(b"a\r\nb") == ["a"]
    assert s.feed(b"c\n") == ["bc"]
    long = b"y" * (MAX + 10)
    assert s.feed(long) == ["y" * MAX]  # handed on once it passes the limit
    assert s.feed(b"y" * 3 * MAX) == []  # the rest of that line is dropped as it arrives
    assert s.feed(b"yy\nnext\n") == ["next"]
    assert s.feed(b"z" * MAX + b"\n") == ["z" * MAX]  # exactly the limit is kept whole
    assert s.feed(b"\xff\xfe ok\n") == ["\ufffd\ufffd ok"]


@pytest.mark.parametrize(
    "rest, error, problem",
    [
        ("OK [1]", MalformedAnswer, "not a JSON object"),
        ('OK "x"', MalformedAnswer, "not a JSON object"),
        ("OK NaN", MalformedAnswer, "not JSON"),
        ("OK {" * 1, MalformedAnswer, "not JSON"),
        ("OK " + "[" * 100_000, MalformedAnswer, "nested too deeply"),
        ('OK {"a": Infinity}', MalformedAnswer, "not JSON"),
        ("OKAY", MalformedAnswer, "not JSON"),
        ("MAYBE", MalformedAnswer, "malformed"),
        ("ERR no such thing", NodeRefused, "no such thing"),
    ],
)
def test_malformed_answers_are_clear_errors(rest, error, problem):
    with pytest.raises(error, match=problem):
        parse_answer(rest)


def test_good_answers():
    assert parse_answer("OK") == {}
    assert parse_answer('OK {"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}


def scripted_console(reply: bytes):
    """A socket:// peer that answers the first line it reads with `reply`."""
    srv = socket.create_server(("127.0.0.1", 0))

    def run():
        conn, _ = srv.accept()
        with conn:
            buf = b""
            while b"\n" not in buf:
                buf += conn.recv(4096)
            conn.sendall(reply)
            conn.recv(1)  # hold the connection until the client closes it
        srv.close()

    threading.Thread(target=run, daemon=True).start()
    return f"socket://127.0.0.1:{srv.getsockname()[1]}"


def test_provision_console_cuts_an_endless_log_line():
    url = scripted_console(b"x" * (MAX * 50) + b"\nK32_RESP:STATUS OK {}\n")
    with Console(url) as c:
        assert c.command("STATUS", timeout=10) == {}
        assert list(c.log_lines) == ["x" * MAX]


def test_provision_console_keeps_only_the_newest_log_lines():
    """A node that logs without end while the client waits for an answer does not grow the
    client's memory: the newest CONSOLE_LOG_KEPT lines are kept."""
    kept = int(load_common()["CONSOLE_LOG_KEPT"])
    lines = b"".join(b"line %d\n" % i for i in range(kept * 4))
    url = scripted_console(lines + b"K32_RESP:STATUS OK {}\n")
    with Console(url) as c:
        assert c.command("STATUS", timeout=10) == {}
        assert list(c.log_lines) == [f"line {i}" for i in range(kept * 3, kept * 4)]


@pytest.mark.parametrize(
    "reply, problem",
    [
        (b"K32_RESP:STATUS OK " + b"[" * 10_000 + b"\n", "answer to STATUS is not JSON \\(nested too deeply\\)"),
        (b"K32_RESP:STATUS OK [1, 2]\n", "answer to STATUS is not a JSON object"),
        (b"K32_RESP:STATUS ERR busy\n", "the node refused STATUS: busy"),
    ],
)
def test_provision_console_reports_bad_answers(reply, problem):
    with Console(scripted_console(reply)) as c, pytest.raises(ProvisionError, match=problem):
        c.command("STATUS", timeout=10)
