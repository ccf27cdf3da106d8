"""`k32 check stacks`' bound over a call graph in GCC's -fcallgraph-info=su format: frames add
up along the deepest path, annotated cycles and indirect calls count (per caller where a
shared function calls each caller's callback), unannotated ones make the figure a lower bound
(which fails the check), and a listed target that matches nothing is an error."""

import shutil
import subprocess

import pytest

from k32.mcu import library_frames, stacks
from k32.testing.call_graphs import use_stack_notes, write_call_graph


def _graph(tmp_path):
    write_call_graph(
        tmp_path,
        [
            ("main", "void k32::main()", 100),
            ("small", "void k32::small()", 10),
            ("big", "void k32::big()", 500),
            ("rec", "void k32::rec(int)", 40),
            ("ptr", "void k32::through_pointer()", 20),
            ("memcpy", "memcpy", None),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [
            ("main", "small"),
            ("main", "big"),
            ("big", "memcpy"),
            ("main", "rec"),
            ("rec", "rec"),
            ("main", "ptr"),
            ("ptr", "__indirect_call"),
        ],
    )
    return stacks.load_graph(tmp_path)


@pytest.mark.skipif(shutil.which("arm-none-eabi-g++") is None, reason="arm-none-eabi toolchain not installed")
def test_deepest_path_and_lower_bounds(tmp_path):
    fns = _graph(tmp_path)
    b = stacks.worst(fns, fns["main"], {})
    memcpy = fns["memcpy"]  # newlib's, read from the link's libc.a
    assert memcpy.origin == "libc.a" and memcpy.frame is not None
    assert b.bytes == 600 + memcpy.frame  # main + big + memcpy below it
    assert b.path[:3] == ["void k32::main() (100)", "void k32::big() (500)", f"memcpy ({memcpy.frame}, libc.a)"]
    assert "recursion through void k32::rec(int)" in b.unbounded
    assert "indirect call in void k32::through_pointer()" in b.unbounded
    assert not b.library


def test_annotations_bound_cycles_and_pointers(tmp_path):
    fns = _graph(tmp_path)
    notes = {"recursion": {"k32::rec": 20}, "indirect": {"through_pointer": [r"k32::big\("]}}
    b = stacks.worst(fns, fns["main"], notes)
    assert not b.unbounded
    assert b.bytes == 100 + 40 * 20  # the cycle nested 20 deep beats big (500) and ptr -> big (520)
    b = stacks.worst(fns, fns["ptr"], notes)
    assert b.bytes == 20 + 500


def test_a_target_that_matches_nothing_is_an_error(tmp_path):
    fns = _graph(tmp_path)
    with pytest.raises(stacks.StackError, match="matches no function"):
        stacks.worst(fns, fns["main"], {"indirect": {"through_pointer": ["k32::gone"]}})


def test_recursion_limit_read_from_the_limits(tmp_path):
    from k32.boards import load_common

    assert stacks._depth("common:JSON_DEPTH_MAX") == load_common()["JSON_DEPTH_MAX"]
    with pytest.raises(stacks.StackError, match="no such number"):
        stacks._depth("common:NO_SUCH_LIMIT")
    src = tmp_path / "limits.h"
    src.write_text("constexpr int kLevels = 12;\n")
    assert stacks._depth(f"{src}:kLevels") == 12
    with pytest.raises(stacks.StackError, match="no constant"):
        stacks._depth(f"{src}:kNoSuchLimit")


def _board_check(tmp_path, monkeypatch, frame):
    write_call_graph(
        tmp_path, [("t", "void k32::thread_main(void*)", 100), ("deep", "void k32::deep()", frame)], [("t", "deep")]
    )
    use_stack_notes(tmp_path, monkeypatch)
    return stacks.check("esp32", tmp_path)


def test_a_thread_over_its_budget_fails_the_check(tmp_path, monkeypatch):
    from k32.boards import load_board

    budget = load_board("esp32").budgets["events_stack"]["bytes"]
    r = _board_check(tmp_path, monkeypatch, budget)  # 100 + budget: just over
    assert r["threads"][0]["verdict"] == "EXCEEDS" and not r["ok"]
    assert r["threads"][0]["worst_bytes"] == budget + 100


def test_a_thread_within_its_budget_passes(tmp_path, monkeypatch):
    from k32.boards import load_board

    budget = load_board("esp32").budgets["events_stack"]["bytes"]
    r = _board_check(tmp_path, monkeypatch, budget - 100)
    assert r["threads"][0]["verdict"] == "within" and r["ok"]


def _role_check(tmp_path, monkeypatch, board):
    tmp_path = tmp_path / board
    tmp_path.mkdir()
    write_call_graph(tmp_path, [("t", "void k32::thread_main(void*)", 1 << 20)], [])
    use_stack_notes(
        tmp_path,
        monkeypatch,
        'threads:\n  api: {role: control-plane, entry: "k32::thread_main(void*)", budget: api_conn_stack}\n',
    )
    return stacks.check(board, tmp_path)


def test_a_control_plane_thread_is_not_held_against_a_worker_board(tmp_path, monkeypatch):
    # esp32 is worker-only (its node refuses --role control-plane), so the API thread never
    # starts there; on s3 the same figure exceeds the budget and fails the check.
    r = _role_check(tmp_path, monkeypatch, "esp32")
    assert r["threads"][0]["verdict"] == "not run (control-plane only)" and r["ok"]
    r = _role_check(tmp_path, monkeypatch, "s3")
    assert r["threads"][0]["verdict"] == "EXCEEDS" and not r["ok"]


def test_an_unknown_role_is_an_error(tmp_path, monkeypatch):
    write_call_graph(tmp_path, [("t", "void k32::thread_main(void*)", 10)], [])
    use_stack_notes(
        tmp_path,
        monkeypatch,
        'threads:\n  api: {role: boss, entry: "k32::thread_main(void*)", budget: api_conn_stack}\n',
    )
    with pytest.raises(stacks.StackError, match="role"):
        stacks.check("s3", tmp_path)


def test_cli_exits_1_when_a_thread_exceeds(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from k32.mcu.cli import check_group

    write_call_graph(tmp_path, [("t", "void k32::thread_main(void*)", 1 << 20)], [])
    use_stack_notes(tmp_path, monkeypatch)
    res = CliRunner().invoke(check_group, ["stacks", "--board", "esp32", "--build-dir", str(tmp_path)])
    assert res.exit_code == 1, res.output
    assert "EXCEEDS" in res.output


def test_a_call_graph_older_than_its_object_is_refused(tmp_path):
    import os

    write_call_graph(tmp_path, [("main", "void k32::main()", 100)], [])
    d = tmp_path / "CMakeFiles" / "k32core.dir" / "src" / "core" / "x"
    (d / "x.cpp.obj").write_bytes(b"")
    (d / "x.cpp.su").write_text("")
    ci_time = (d / "x.cpp.ci").stat().st_mtime_ns
    os.utime(d / "x.cpp.su", ns=(ci_time, ci_time))  # written together (the same clock tick)
    assert stacks.load_graph(tmp_path)  # written together: accepted
    # a compiler-cache hit restores object and .su, and leaves last build's .ci behind
    os.utime(d / "x.cpp.ci", (1, 1))
    with pytest.raises(stacks.StackError, match="older than its frame sizes"):
        stacks.load_graph(tmp_path)


def test_a_complete_object_destructor_counts_as_its_base_object_body(tmp_path):
    # GCC calls ~T through the D1 alias of the D2 body it emits; without following the alias
    # a recursive destructor would count as a zero-byte library call.
    write_call_graph(
        tmp_path,
        [("main", "void k32::main()", 100), ("x.cpp:_ZN3k325ValueD2Ev", "k32::Value::~Value()", 40)],
        [("main", "x.cpp:_ZN3k325ValueD1Ev"), ("x.cpp:_ZN3k325ValueD2Ev", "x.cpp:_ZN3k325ValueD1Ev")],
    )
    fns = stacks.load_graph(tmp_path)
    b = stacks.worst(fns, fns["main"], {"recursion": {"k32::Value::~Value": 10}})
    assert b.bytes == 100 + 40 * 10 and not b.library and not b.unbounded


def _chain_check(tmp_path, monkeypatch, board, host_frame=20):
    tmp_path = tmp_path / board
    tmp_path.mkdir()
    # a connection thread calls a pod in-process; the pod's import calls the next pod the same way
    write_call_graph(
        tmp_path,
        [
            ("t", "void k32::conn_main(void*)", 100),
            ("cp", "int k32::call_pod()", 50),
            ("ex", "void k32::execute()", 30),
            ("host", "void k32::host_call()", host_frame),
            ("big", "void k32::big()", 400),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("t", "cp"), ("cp", "ex"), ("ex", "big"), ("ex", "__indirect_call"), ("host", "cp")],
    )
    use_stack_notes(
        tmp_path,
        monkeypatch,
        'threads:\n  conn: {entry: "k32::conn_main(void*)", budget: ingress_stack, inproc: chain}\n'
        'inproc: {call: "k32::call_pod()", chain: 8}\n'
        'indirect: {"k32::execute()": ["k32::host_call\\\\("]}\n',
    )
    return {r["thread"]: r for r in stacks.check(board, tmp_path)["threads"]}


def test_an_in_process_chain_counts_hops_and_one_call(tmp_path, monkeypatch):
    from k32.boards import load_board

    rows = _chain_check(tmp_path, monkeypatch, "s3")
    # the call: call_pod + execute + the larger of big and the import's cut call to the next pod
    assert rows["pod-call"]["worst_bytes"] == 50 + 30 + max(400, 20 + 50)
    # one hop: from one call_pod down to the next one (not counting that one)
    assert rows["inproc-hop"]["worst_bytes"] == 50 + 30 + 20
    # the thread: its way down to the first call + 7 hops + one call, against own + a chain
    conn = rows["conn"]
    assert conn["worst_bytes"] == 100 + 7 * 100 + 480
    b = load_board("s3").budgets
    assert conn["budget_bytes"] == (
        b["ingress_stack"]["bytes"] + b["inproc_call_stack"]["bytes"] + 7 * b["inproc_hop_stack"]["bytes"]
    )
    # a worker-only board keeps one call's room: no hops
    rows = _chain_check(tmp_path, monkeypatch, "esp32")
    assert rows["conn"]["worst_bytes"] == 100 + 480


def test_a_hop_over_its_budget_fails_the_check(tmp_path, monkeypatch):
    from k32.boards import load_board

    hop_budget = load_board("s3").budgets["inproc_hop_stack"]["bytes"]
    rows = _chain_check(tmp_path, monkeypatch, "s3", host_frame=hop_budget)
    assert rows["inproc-hop"]["verdict"] == "EXCEEDS"


def _shared_walk_graph(tmp_path):
    # Two callers hand a shared walker their own callbacks; the walker calls through a pointer.
    # `a` is deep but passes a small callback, `b` shallow with a big one.
    write_call_graph(
        tmp_path,
        [
            ("main", "void k32::main()", 10),
            ("a", "void k32::a()", 100),
            ("b", "void k32::b()", 10),
            ("c", "void k32::c()", 10),
            ("walk", "void k32::walk(const std::function<void()>&)", 20),
            ("cb_a", "k32::a()::<lambda()>", 10),
            ("cb_b", "k32::b()::<lambda()>", 1000),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("main", "a"), ("main", "b"), ("a", "walk"), ("b", "walk"), ("c", "walk"), ("walk", "__indirect_call")],
    )
    return stacks.load_graph(tmp_path)


_PER_CALLER = {"k32::walk(": {"from": {"k32::a()": [r"^k32::a\(\)::<lambda"], "k32::b()": [r"^k32::b\(\)::<lambda"]}}}


def test_an_indirect_call_listed_per_caller_counts_only_that_callers_targets(tmp_path):
    fns = _shared_walk_graph(tmp_path)
    # every callback of the signature for every caller: `a` pays for `b`'s big callback
    wide = {"indirect": {"k32::walk(": [r"::<lambda\(\)>$"]}}
    assert stacks.worst(fns, fns["a"], wide).bytes == 100 + 20 + 1000
    # per caller: `a` reaches only its own callback, `b` only its own
    assert stacks.worst(fns, fns["a"], {"indirect": _PER_CALLER}).bytes == 100 + 20 + 10
    b = stacks.worst(fns, fns["b"], {"indirect": _PER_CALLER})
    assert b.bytes == 10 + 20 + 1000 and not b.unbounded
    # the walker's figure is kept per caller: main sees `b`'s path even though `a` (visited
    # first) reached the walker with its small callback
    m = stacks.worst(fns, fns["main"], {"indirect": _PER_CALLER})
    assert m.bytes == 10 + 10 + 20 + 1000 and not m.unbounded
    assert m.path[1:] == [
        "void k32::b() (10)",
        "void k32::walk(const std::function<void()>&) (20)",
        "k32::b()::<lambda()> (1000)",
    ]


def test_a_caller_the_entry_does_not_name_leaves_the_call_unbounded(tmp_path):
    fns = _shared_walk_graph(tmp_path)
    b = stacks.worst(fns, fns["c"], {"indirect": _PER_CALLER})
    assert b.unbounded == {
        "indirect call in void k32::walk(const std::function<void()>&) from void k32::c() "
        "(no targets listed for that caller)"
    }


def test_a_per_caller_entry_that_matches_nothing_is_an_error(tmp_path):
    fns = _shared_walk_graph(tmp_path)
    # a target pattern of one caller that matches no function, reached by this thread or not
    gone = {"k32::walk(": {"from": {"k32::a()": [r"^k32::a\(\)::<lambda"], "k32::b()": ["k32::gone"]}}}
    with pytest.raises(stacks.StackError, match="matches no function"):
        stacks.worst(fns, fns["a"], {"indirect": gone})
    # a caller that never calls the function
    stranger = {"k32::walk(": {"from": {"k32::main()": [r"^k32::a\(\)::<lambda"]}}}
    with pytest.raises(stacks.StackError, match="does not call it"):
        stacks.worst(fns, fns["a"], {"indirect": stranger})
    # a key that names no function calling through a pointer
    with pytest.raises(stacks.StackError, match="names no function that calls through a pointer"):
        stacks.worst(fns, fns["a"], {"indirect": {"k32::a()": [r"^k32::a\(\)::<lambda"]}})


def test_a_callback_of_the_signature_that_no_caller_lists_is_an_error(tmp_path):
    fns = _shared_walk_graph(tmp_path)
    only_a = {"k32::walk(": {"signature": [r"::<lambda\(\)>$"], "from": {"k32::a()": [r"^k32::a\(\)::<lambda"]}}}
    with pytest.raises(stacks.StackError, match=r"k32::b\(\)::<lambda\(\)> matches its signature but no caller"):
        stacks.worst(fns, fns["a"], {"indirect": only_a})
    both = {"k32::walk(": {"signature": [r"::<lambda\(\)>$"], **_PER_CALLER["k32::walk("]}}
    assert stacks.worst(fns, fns["a"], {"indirect": both}).bytes == 100 + 20 + 10


def test_a_lower_bound_fails_the_check(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from k32.mcu.cli import check_group

    write_call_graph(
        tmp_path,
        [
            ("t", "void k32::thread_main(void*)", 100),
            ("walk", "void k32::walk()", 20),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("t", "walk"), ("walk", "__indirect_call")],
    )
    use_stack_notes(tmp_path, monkeypatch)
    r = stacks.check("esp32", tmp_path)
    assert r["threads"][0]["verdict"] == "LOWER BOUND" and r["threads"][0]["lower_bound"] and not r["ok"]
    res = CliRunner().invoke(check_group, ["stacks", "--board", "esp32", "--build-dir", str(tmp_path)])
    assert res.exit_code == 1 and ">=120" in res.output, res.output


def test_a_walker_nested_in_another_callers_callback_is_not_recursion(tmp_path):
    # a's callback walks again with an inner callback (the kubelet's Services, then each
    # Service's Endpoints): the same walker twice on the path, from two different callers
    write_call_graph(
        tmp_path,
        [
            ("a", "void k32::a()", 100),
            ("walk", "void k32::walk()", 20),
            ("outer", "k32::a()::<lambda()>", 30),
            ("inner", "k32::a()::<lambda()>::<lambda()>", 40),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("a", "walk"), ("walk", "__indirect_call"), ("outer", "walk")],
    )
    fns = stacks.load_graph(tmp_path)
    notes = {
        "indirect": {
            "k32::walk(": {
                "from": {
                    "k32::a()::<lambda()>": [r"<lambda\(\)>::<lambda\(\)>$"],
                    "k32::a()": [r"^k32::a\(\)::<lambda\(\)>$"],
                }
            }
        }
    }
    b = stacks.worst(fns, fns["a"], notes)
    assert not b.unbounded and b.bytes == 100 + 20 + 30 + 20 + 40


def test_an_entry_must_list_what_a_std_function_call_reaches(tmp_path):
    # GCC names std::function's own header as the site of an inlined call: the line that
    # calls _M_manager (destroy or copy) or _M_invoker (call)
    hdr = tmp_path / "include" / "bits" / "std_function.h"
    hdr.parent.mkdir(parents=True)
    hdr.write_text(
        "x\n\tif (_M_manager)\n\t_M_manager(_M_functor, _M_functor, __destroy_functor);\n"
        "\treturn _M_invoker(_M_functor, std::forward<_ArgTypes>(__args)...);\n"
    )
    write_call_graph(
        tmp_path,
        [
            ("a", "void k32::a()", 100),
            ("cb", "k32::a()::<lambda()>", 10),
            ("mgr", "), _Functor>::_M_manager(std::_Any_data&) [with _Functor = k32::a()::<lambda()>]", 8),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("a", "__indirect_call", f"{hdr}:4:12"), ("a", "__indirect_call", f"{hdr}:3:2")],
    )
    fns = stacks.load_graph(tmp_path)
    with pytest.raises(stacks.StackError, match="destroys a std::function, but no _M_manager"):
        stacks.worst(fns, fns["a"], {"indirect": {"k32::a()": [r"^k32::a\(\)::<lambda"]}})
    with pytest.raises(stacks.StackError, match="calls a std::function, but only managers"):
        stacks.worst(fns, fns["a"], {"indirect": {"k32::a()": ["_M_manager"]}})
    b = stacks.worst(fns, fns["a"], {"indirect": {"k32::a()": [r"^k32::a\(\)::<lambda", "_M_manager"]}})
    assert b.bytes == 110 and not b.unbounded


# --- library frames, read from the archives ---------------------------------------------

_AS = shutil.which("arm-none-eabi-as")
needs_toolchain = pytest.mark.skipif(_AS is None, reason="arm-none-eabi binutils not installed")

_LIB_S = """
    .syntax unified
    .thumb
    .text
    .global lib_leaf
    .type lib_leaf, %function
    .thumb_func
lib_leaf:
    push {r4, r5, r6, lr}
    sub sp, #40
    cbz r0, 1f
    add sp, #40
    pop {r4, r5, r6, pc}
1:  movs r0, #1
    add sp, #40
    pop {r4, r5, r6, pc}
    .size lib_leaf, .-lib_leaf
    .global lib_top
    .type lib_top, %function
    .thumb_func
lib_top:
    stmdb sp!, {r4, r5, r6, r7, r8, lr}
    vpush {d8-d9}
    sub.w sp, sp, #1024
    bl lib_leaf
    add.w sp, sp, #1024
    vpop {d8-d9}
    ldmia.w sp!, {r4, r5, r6, r7, r8, lr}
    b.w lib_tail
    .size lib_top, .-lib_top
    .global lib_tail
    .type lib_tail, %function
    .thumb_func
lib_tail:
    push {r3, lr}
    pop {r3, pc}
    .size lib_tail, .-lib_tail
    .global lib_alloca
    .type lib_alloca, %function
    .thumb_func
lib_alloca:
    push {r7, lr}
    mov r7, sp
    sub.w sp, sp, r0
    mov sp, r7
    pop {r7, pc}
    .size lib_alloca, .-lib_alloca
    .global lib_ptr
    .type lib_ptr, %function
    .thumb_func
lib_ptr:
    push {r4, lr}
    blx r0
    pop {r4, pc}
    .size lib_ptr, .-lib_ptr
"""


def _archive(tmp_path):
    src, obj, lib = tmp_path / "lib.s", tmp_path / "lib.o", tmp_path / "libfake.a"
    src.write_text(_LIB_S)
    subprocess.run([_AS, "-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-o", str(obj), str(src)], check=True)
    subprocess.run([shutil.which("arm-none-eabi-ar") or "ar", "rcs", str(lib), str(obj)], check=True)
    return lib


@needs_toolchain
def test_a_library_functions_prologue_is_read_into_a_frame(tmp_path):
    data = library_frames.read_archive(_archive(tmp_path))
    fn = {f["name"]: f for f in data["fns"].values()}
    # push of 4 registers + sub sp, #40; the early return does not lower the frame
    assert fn["lib_leaf"]["frame"] == 4 * 4 + 40 and not fn["lib_leaf"]["dynamic"]
    # stmdb of 6 registers + vpush of two doubles + sub.w sp, #1024; a bl and a b.w tail call
    assert fn["lib_top"]["frame"] == 6 * 4 + 2 * 8 + 1024
    assert fn["lib_top"]["calls"] == ["global:lib_leaf", "global:lib_tail"]
    assert fn["lib_ptr"]["indirect"] and fn["lib_ptr"]["frame"] == 8


@needs_toolchain
def test_newlibs_printf_core_frame_from_the_links_libc():
    # the archives the Cortex-M4 link uses (its multilib: thumb/v7e-m+fp/hard)
    archives = library_frames.link_archives(tmp := stacks.MCU_BUILD_DIR)
    assert any(a.name == "libc.a" and "v7e-m+fp/hard" in str(a) for a in archives), (tmp, archives)
    lib = library_frames.Library(archives, library_frames.CACHE_DIR)
    svf = lib.fn(lib.lookup("_svfprintf_r"))
    assert svf.frame == 9 * 4 + 260  # stmdb of 9 registers + sub sp, #260
    assert "global:_dtoa_r" in svf.calls


def _lib_graph(tmp_path, callee):
    root = tmp_path / "build"
    write_call_graph(root, [("t", "void k32::thread_main(void*)", 100), (callee, callee, None)], [("t", callee)])
    return stacks.load_graph(root, archives=[_archive(tmp_path)])


@needs_toolchain
def test_a_thread_calling_into_a_library_function_counts_its_frame(tmp_path):
    fns = _lib_graph(tmp_path, "lib_top")
    b = stacks.worst(fns, fns["t"], {})
    assert b.bytes == 100 + 1064 + 56 and not b.unbounded  # the thread + lib_top + lib_leaf below it
    assert b.path == ["void k32::thread_main(void*) (100)", "lib_top (1064, libfake.a)", "lib_leaf (56, libfake.a)"]


@needs_toolchain
def test_an_alloca_like_frame_in_a_library_is_refused(tmp_path):
    fns = _lib_graph(tmp_path, "lib_alloca")
    b = stacks.worst(fns, fns["t"], {})
    assert b.unbounded == {"dynamic frame in lib_alloca"}
    # a stated bound makes it one (frame read + the bound given)
    stacks.stated_frames(fns, {"frames": {"lib_alloca": 256}})
    b = stacks.worst(fns, fns["t"], {})
    assert not b.unbounded and b.bytes == 100 + 8 + 256


@needs_toolchain
def test_a_library_indirect_call_needs_its_targets(tmp_path):
    fns = _lib_graph(tmp_path, "lib_ptr")
    assert stacks.worst(fns, fns["t"], {}).unbounded == {"indirect call in lib_ptr"}
    b = stacks.worst(fns, fns["t"], {"indirect": {"lib_ptr": ["symbol:lib_top"]}})
    assert not b.unbounded and b.bytes == 100 + 8 + 1064 + 56
    with pytest.raises(stacks.StackError, match="no archive of the link defines it"):
        stacks.worst(fns, fns["t"], {"indirect": {"lib_ptr": ["symbol:no_such_fn"]}})


@needs_toolchain
def test_a_function_that_ends_the_program_stops_the_path(tmp_path):
    fns = _lib_graph(tmp_path, "lib_top")
    b = stacks.worst(fns, fns["t"], {"ends_program": ["lib_top"]})
    assert b.bytes == 100 + 1064 and b.path[-1] == "lib_top (1064, libfake.a, ends the program)"


def test_the_innermost_round_of_a_recursion_still_calls_below_it(tmp_path):
    # a JSON dump nested to its limit formats a number at the bottom: that call counts
    # below the last round, not instead of the rounds; another cycle under the exit (a
    # document's nesting shared by both) counts one round
    write_call_graph(
        tmp_path,
        [
            ("main", "void k32::main()", 100),
            ("rec", "void k32::rec(int)", 40),
            ("fmt", "void k32::format_number()", 30),
            ("copy", "void k32::copy(int)", 24),
        ],
        [("main", "rec"), ("rec", "rec"), ("rec", "fmt"), ("fmt", "copy"), ("copy", "copy")],
    )
    fns = stacks.load_graph(tmp_path, archives=[])
    b = stacks.worst(fns, fns["main"], {"recursion": {"k32::rec": 20, "k32::copy": 20}})
    assert not b.unbounded
    assert b.bytes == 100 + 40 * 20 + 30 + 24
    # the path shows the call below the last round with the cycle under it taken once
    assert b.path == [
        "void k32::main() (100)",
        "void k32::rec(int) (40)",
        "void k32::rec(int) (x20)",
        "void k32::format_number() (30)",
        "void k32::copy(int) (24)",
    ]


def test_a_call_through_a_pointer_in_the_innermost_round_counts_below_it(tmp_path):
    write_call_graph(
        tmp_path,
        [
            ("main", "void k32::main()", 100),
            ("rec", "void k32::rec(int)", 40),
            ("cb", "void k32::callback()", 70),
            ("__indirect_call", "Indirect Call Placeholder", None),
        ],
        [("main", "rec"), ("rec", "rec"), ("rec", "__indirect_call")],
    )
    fns = stacks.load_graph(tmp_path, archives=[])
    b = stacks.worst(fns, fns["main"], {"recursion": {"k32::rec": 20}, "indirect": {"k32::rec(": [r"k32::callback\("]}})
    assert not b.unbounded and b.bytes == 100 + 40 * 20 + 70
