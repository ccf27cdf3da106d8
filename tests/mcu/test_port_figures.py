"""The boards' port in `k32 check stacks`: a thread that calls a port function (lwIP, mbedTLS,
FreeRTOS below it on a board) counts the board figure recorded for that function; a port
function without a figure, or with only a lower bound, fails the check; a table made from
other port sources than the tree's is refused. And the pieces `k32 check port-stacks` walks
ESP-IDF with: targets named by where they are defined, the log's output kept to the console."""

import pytest
import yaml

from k32.mcu import idf_frames, port_figures, stacks
from k32.testing.call_graphs import use_stack_notes, write_call_graph

SEND = "_ZN3k324port8tcp_sendEv"


def _check(tmp_path, monkeypatch, functions, sources=None):
    """A worker thread (100 bytes) that calls the port's tcp_send, checked for the esp32 with
    the figures' table `functions`."""
    write_call_graph(
        tmp_path,
        [("t", "void k32::thread_main(void*)", 100), (SEND, "int k32::port::tcp_send()", None)],
        [("t", SEND)],
    )
    use_stack_notes(tmp_path, monkeypatch)
    table = tmp_path / "stack_figures.yaml"
    data = {"target": "esp32c3 rv32imc -Os", "functions": functions}
    if sources is not None:
        data["sources"] = sources
    table.write_text(yaml.safe_dump(data))
    monkeypatch.setattr(port_figures, "FIGURES", table)
    return stacks.check("esp32", tmp_path)["threads"][0]


def test_a_port_call_adds_its_board_figure(tmp_path, monkeypatch):
    row = _check(
        tmp_path,
        monkeypatch,
        {SEND: {"name": "int k32::port::tcp_send()", "bytes": 2400, "path": ["lwip_send (96)", "netconn_write (64)"]}},
    )
    # the thread's own frame + the port function with lwIP below it
    assert row["worst_bytes"] == 100 + 2400
    assert row["verdict"] == "within" and not row["lower_bound"]
    assert row["port_calls"] == 1 and row["port_functions"] == ["int k32::port::tcp_send()"]
    assert row["deepest_path"][1] == "int k32::port::tcp_send() (2400, port, esp32c3 rv32imc -Os)"
    assert "  lwip_send (96)" in row["deepest_path"]


def test_a_port_figure_over_the_budget_fails(tmp_path, monkeypatch):
    from k32.boards import load_board

    budget = load_board("esp32").budgets["events_stack"]["bytes"]
    row = _check(tmp_path, monkeypatch, {SEND: {"bytes": budget}})
    assert row["worst_bytes"] == budget + 100 and row["verdict"] == "EXCEEDS"


def test_a_port_function_without_a_figure_fails(tmp_path, monkeypatch):
    row = _check(tmp_path, monkeypatch, {"_ZN3k324port5otherEv": {"bytes": 10}})
    assert row["verdict"] == "LOWER BOUND" and row["lower_bound"]
    assert row["worst_bytes"] == 100
    assert any("no board figure for port function int k32::port::tcp_send()" in u for u in row["unbounded"])


def test_a_port_figure_that_is_a_lower_bound_fails(tmp_path, monkeypatch):
    row = _check(tmp_path, monkeypatch, {SEND: {"bytes": 900, "unbounded": ["indirect call in lwip_send"]}})
    assert row["verdict"] == "LOWER BOUND" and row["worst_bytes"] == 1000
    assert any("lower bound (indirect call in lwip_send)" in u for u in row["unbounded"])


def test_figures_made_from_other_port_sources_are_refused(tmp_path, monkeypatch):
    sources = port_figures.source_digests()
    some = sorted(sources)[0]
    sources[some] = "0" * 64
    with pytest.raises(port_figures.FiguresError, match="out of date"):
        _check(tmp_path, monkeypatch, {SEND: {"bytes": 10}}, sources=sources)


def test_the_committed_table_matches_the_port_sources():
    table = port_figures.load()  # raises when a port source changed since it was made
    assert table["functions"] and all(isinstance(e["bytes"], int) for e in table["functions"].values())


def _idf_graph(tmp_path, nodes, edges):
    write_call_graph(tmp_path, nodes, edges)
    fns, _defined = stacks.read_call_graphs(sorted(tmp_path.rglob("*.ci")))
    return fns


def test_a_target_named_by_its_file(tmp_path):
    fns = _idf_graph(
        tmp_path,
        [
            ("ops", "ops_call", 16),
            ("/idf/cipher_wrap.c:aes_wrap", "aes_wrap", 40),
            ("/idf/other.c:aes_wrap_not", "aes_wrap_not", 4000),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("ops", "__indirect_call")],
    )
    b = stacks.worst(fns, fns["ops"], {"indirect": {"ops_call": ["in:/cipher_wrap\\.c:"]}})
    assert b.bytes == 16 + 40 and not b.unbounded


def test_the_logs_output_reaches_only_the_console(tmp_path):
    # the log prints through vprintf and the VFS; walked as it is, the VFS reaches the file
    # system too (4000 bytes); the console copy of the log's output reaches the console only
    fns = _idf_graph(
        tmp_path,
        [
            ("esp_log_writev", "esp_log_writev", 32),
            ("vprintf", "vprintf", 100),
            ("esp_vfs_write", "esp_vfs_write", 48),
            ("/idf/uart_vfs.c:uart_write", "uart_write", 64),
            ("/idf/esp_littlefs.c:vfs_littlefs_write", "vfs_littlefs_write", 4000),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [
            ("esp_log_writev", "__indirect_call"),
            ("vprintf", "esp_vfs_write"),
            ("esp_vfs_write", "__indirect_call"),
        ],
    )
    notes = {
        "indirect": {
            "esp_log_writev": ["^vprintf$"],
            "esp_vfs_write": ["in:/(uart_vfs|esp_littlefs)\\.c:\\w*_write$"],
        }
    }
    resolved = stacks.indirect_targets(fns, notes)
    assert stacks.worst(fns, fns["esp_log_writev"], notes, resolved).bytes == 32 + 100 + 48 + 4000
    console = {"from": "esp_log_writev", "entry": "vprintf", "vfs": {"esp_vfs_write": ["in:/uart_vfs\\.c:"]}}
    idf_frames.console_output(fns, resolved, console)
    b = stacks.worst(fns, fns["esp_log_writev"], notes, resolved)
    assert b.bytes == 32 + 100 + 48 + 64 and not b.unbounded
    # a file write that is not the log's still reaches the file system
    assert stacks.worst(fns, fns["esp_vfs_write"], notes, resolved).bytes == 48 + 4000


def _log_line_graph(tmp_path):
    return _idf_graph(
        tmp_path,
        [
            ("esp_log_writev", "esp_log_writev", 32),
            ("vprintf", "vprintf", 100),
            ("log_line", "void k32::port::log_line(const char*)", 16),
            ("fputs", "fputs", 40),
            ("esp_vfs_write", "esp_vfs_write", 48),
            ("/idf/uart_vfs.c:uart_write", "uart_write", 64),
            ("/idf/esp_littlefs.c:vfs_littlefs_write", "vfs_littlefs_write", 4000),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [
            ("esp_log_writev", "__indirect_call"),
            ("vprintf", "esp_vfs_write"),
            ("log_line", "fputs"),
            ("fputs", "esp_vfs_write"),
            ("esp_vfs_write", "__indirect_call"),
        ],
    )


def test_the_ports_log_line_reaches_only_the_console(tmp_path):
    # the port's log line writes to stderr by direct calls (fputs): listed under `direct`,
    # those calls reach the console only; a function that does not make the call is refused
    notes = {
        "indirect": {
            "esp_log_writev": ["^vprintf$"],
            "esp_vfs_write": ["in:/(uart_vfs|esp_littlefs)\\.c:\\w*_write$"],
        }
    }
    fns = _log_line_graph(tmp_path / "a")
    resolved = stacks.indirect_targets(fns, notes)
    assert stacks.worst(fns, fns["log_line"], notes, resolved).bytes == 16 + 40 + 48 + 4000
    console = {
        "from": "esp_log_writev",
        "entry": "vprintf",
        "direct": {"void k32::port::log_line(const char*)": ["fputs"]},
        "vfs": {"esp_vfs_write": ["in:/uart_vfs\\.c:"]},
    }
    idf_frames.console_output(fns, resolved, console)
    assert stacks.worst(fns, fns["log_line"], notes, resolved).bytes == 16 + 40 + 48 + 64
    assert stacks.worst(fns, fns["fputs"], notes, resolved).bytes == 40 + 48 + 4000  # any other file
    console["direct"] = {"void k32::port::log_line(const char*)": ["fflush"]}
    fns = _log_line_graph(tmp_path / "b")
    resolved = stacks.indirect_targets(fns, notes)
    with pytest.raises(idf_frames.FramesError, match="does not call 'fflush'"):
        idf_frames.console_output(fns, resolved, console)


def test_without_port_figures_a_port_call_counts_zero(tmp_path, monkeypatch):
    write_call_graph(
        tmp_path,
        [("t", "void k32::thread_main(void*)", 100), (SEND, "int k32::port::tcp_send()", None)],
        [("t", SEND)],
    )
    use_stack_notes(tmp_path, monkeypatch)
    monkeypatch.setattr(port_figures, "FIGURES", tmp_path / "none.yaml")  # not read at all
    r = stacks.check("esp32", tmp_path, port=False)
    row = r["threads"][0]
    assert not r["port_figures"] and row["worst_bytes"] == 100 and row["verdict"] == "within"
    assert row["port_functions"] == ["int k32::port::tcp_send()"]


@pytest.mark.skipif(
    __import__("shutil").which("riscv64-unknown-elf-gcc") is None, reason="Debian's RISC-V compiler not installed"
)
def test_an_alias_counts_as_the_function_it_names(tmp_path):
    """ESP-IDF defines esp_timer_get_time as an alias of esp_timer_impl_get_time, placed in
    IRAM (a section not named after the function): a call to the alias counts the function."""
    import subprocess

    src = tmp_path / "x.c"
    src.write_text(
        "int impl(int x) { return x * 3 + 1; }\n"
        'int alias_of_impl(int x) __attribute__((alias("impl")));\n'
        '__attribute__((section(".iram1.7"))) int get_time_impl(int x) { return x + impl(x); }\n'
        'int get_time(int x) __attribute__((alias("get_time_impl")));\n'
    )
    obj = tmp_path / "x.c.o"
    subprocess.run(
        ["riscv64-unknown-elf-gcc", "-march=rv32imc_zicsr_zifencei", "-mabi=ilp32", "-Os", "-ffunction-sections"]
        + ["-fstack-usage", "-fcallgraph-info=su", "-c", str(src), "-o", str(obj)],
        check=True,
    )
    fns, defined = stacks.read_call_graphs([tmp_path / "x.c.ci"])
    assert "alias_of_impl" not in fns and "get_time" not in fns  # GCC's graph has no node for them
    idf_frames._add_compiler_calls(fns, defined)
    assert fns["alias_of_impl"].frame == 0 and fns["alias_of_impl"].calls == {"impl"}
    assert fns["get_time"].frame == 0 and fns["get_time"].calls == {"get_time_impl"}


@pytest.mark.skipif(
    __import__("shutil").which("riscv64-unknown-elf-gcc") is None, reason="Debian's RISC-V compiler not installed"
)
@pytest.mark.parametrize("weak_first", [True, False])
def test_a_strong_alias_wins_over_a_weak_one(tmp_path, weak_first):
    """newlib's _open_r is a weak alias of a stub that only fails (ESP-IDF's syscalls.c) and a
    strong alias of esp_vfs_open (vfs.c): the linker takes the strong one, so a file open
    counts the VFS below it, whichever object the walk reads first."""
    import subprocess

    sources = {
        "stub.c": "int not_implemented(int x) { return -x; }\n"
        'int open_r(int x) __attribute__((weak, alias("not_implemented")));\n',
        "vfs.c": "int deep(int x);\nint vfs_open(int x) { volatile char b[200]; b[0] = x; return deep(b[0]); }\n"
        'int open_r(int x) __attribute__((alias("vfs_open")));\n',
    }
    cis = []
    for name, text in sources.items():
        src = tmp_path / name
        src.write_text(text)
        subprocess.run(
            ["riscv64-unknown-elf-gcc", "-march=rv32imc_zicsr_zifencei", "-mabi=ilp32", "-Os", "-ffunction-sections"]
            + ["-fstack-usage", "-fcallgraph-info=su", "-c", str(src), "-o", str(tmp_path / f"{name}.o")],
            check=True,
        )
        cis.append(tmp_path / f"{name}.ci")
    fns, defined = stacks.read_call_graphs(cis if weak_first else cis[::-1])
    idf_frames._add_compiler_calls(fns, defined)
    assert fns["open_r"].calls == {"vfs_open"}


def test_a_call_not_taken_leaves_the_walk_only_while_its_proof_holds(tmp_path):
    """mbedtls_ssl_read runs the handshake (4000 bytes) only while it has not finished; the
    annotation removes that call, and is refused when the function does not make it or when a
    caller the proof does not cover calls the function."""
    nodes = [
        ("read_some", "int k32::port::tlsio::read_some(mbedtls_ssl_context*, void*, size_t)", 32),
        ("mbedtls_ssl_read", "mbedtls_ssl_read", 48),
        ("mbedtls_ssl_handshake", "mbedtls_ssl_handshake", 4000),
        ("mbedtls_ssl_read_record", "mbedtls_ssl_read_record", 200),
    ]
    edges = [
        ("read_some", "mbedtls_ssl_read"),
        ("mbedtls_ssl_read", "mbedtls_ssl_handshake"),
        ("mbedtls_ssl_read", "mbedtls_ssl_read_record"),
    ]
    fns = _idf_graph(tmp_path / "a", nodes, edges)
    assert stacks.worst(fns, fns["read_some"], {}).bytes == 32 + 48 + 4000
    proof = {"calls": ["mbedtls_ssl_handshake"], "callers": ["k32::port::tlsio::read_some\\("]}
    idf_frames.calls_not_taken(fns, {"not_taken": {"mbedtls_ssl_read": proof}})
    assert stacks.worst(fns, fns["read_some"], {}).bytes == 32 + 48 + 200
    # a call the function does not make
    fns = _idf_graph(tmp_path / "b", nodes, edges)
    with pytest.raises(idf_frames.FramesError, match="does not call"):
        idf_frames.calls_not_taken(fns, {"not_taken": {"mbedtls_ssl_read": {**proof, "calls": ["x"]}}})
    # another caller, which may call it before the handshake finished
    fns = _idf_graph(
        tmp_path / "c", [*nodes, ("esp_tls_read", "esp_tls_read", 16)], [*edges, ("esp_tls_read", "mbedtls_ssl_read")]
    )
    with pytest.raises(idf_frames.FramesError, match="esp_tls_read"):
        idf_frames.calls_not_taken(fns, {"not_taken": {"mbedtls_ssl_read": proof}})
