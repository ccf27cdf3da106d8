"""`k32 check stacks`' bound over a call graph in GCC's -fcallgraph-info=su format: frames add
up along the deepest path, annotated cycles and indirect calls count, unannotated ones make
the figure a lower bound, and a listed target that matches nothing is an error."""
import pytest

from k32.mcu import stacks


def _write_ci(root, nodes, edges):
    d = root / "CMakeFiles" / "k32core.dir" / "src" / "core" / "x"
    d.mkdir(parents=True)
    lines = ['graph: { title: "x.cpp"']
    for title, name, frame in nodes:
        lab = f"{name}\\nx.cpp:1:1" + (f"\\n{frame} bytes (static)" if frame is not None else "")
        lines.append(f'node: {{ title: "{title}" label: "{lab}" }}')
    for a, b in edges:
        lines.append(f'edge: {{ sourcename: "{a}" targetname: "{b}" label: "x.cpp:2:2" }}')
    (d / "x.cpp.ci").write_text("\n".join(lines) + "\n}\n")


def _graph(tmp_path):
    _write_ci(tmp_path, [
        ("main", "void k32::main()", 100),
        ("small", "void k32::small()", 10),
        ("big", "void k32::big()", 500),
        ("rec", "void k32::rec(int)", 40),
        ("ptr", "void k32::through_pointer()", 20),
        ("memcpy", "memcpy", None),
        ("__indirect_call", "Indirect Call Placeholder", None),
    ], [("main", "small"), ("main", "big"), ("big", "memcpy"), ("main", "rec"), ("rec", "rec"),
        ("main", "ptr"), ("ptr", "__indirect_call")])
    return stacks.load_graph(tmp_path)


def test_deepest_path_and_lower_bounds(tmp_path):
    fns = _graph(tmp_path)
    b = stacks.worst(fns, fns["main"], {})
    assert b.bytes == 600  # main + big; the library call counts zero
    assert b.path[:2] == ["void k32::main() (100)", "void k32::big() (500)"]
    assert "recursion through void k32::rec(int)" in b.unbounded
    assert "indirect call in void k32::through_pointer()" in b.unbounded
    assert b.library == {"memcpy"}


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


def test_recursion_limit_read_from_the_source(tmp_path):
    assert stacks._depth("firmware/src/core/json/json.h:kMaxDepth") >= 1
    with pytest.raises(stacks.StackError, match="no constant"):
        stacks._depth("firmware/src/core/json/json.h:kNoSuchLimit")
