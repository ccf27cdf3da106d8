"""Small call graphs for tests of `k32 check stacks` and its port figures: a build tree's
one GCC -fcallgraph-info=su file, written from a list of functions and calls, and the
threads' notes (stack_check.yaml) the check reads in place of the tree's."""

from __future__ import annotations

from pathlib import Path

# One worker thread whose entry is k32::thread_main, held to the events thread's budget.
WORKER_THREAD_NOTES = 'threads:\n  worker: {entry: "k32::thread_main(void*)", budget: events_stack}\n'


def write_call_graph(root: Path, nodes, edges) -> None:
    """Writes x.cpp.ci where `k32 check stacks` finds the core's graphs under build dir
    `root`. nodes: (title, name, frame bytes or None for no frame of its own); edges:
    (caller title, callee title[, call site]), the site being where GCC says the call is
    (the header of an inlined one)."""
    d = root / "CMakeFiles" / "k32core.dir" / "src" / "core" / "x"
    d.mkdir(parents=True)
    lines = ['graph: { title: "x.cpp"']
    for title, name, frame in nodes:
        lab = f"{name}\\nx.cpp:1:1" + (f"\\n{frame} bytes (static)" if frame is not None else "")
        lines.append(f'node: {{ title: "{title}" label: "{lab}" }}')
    for a, b, *site in edges:
        lines.append(f'edge: {{ sourcename: "{a}" targetname: "{b}" label: "{site[0] if site else "x.cpp:2:2"}" }}')
    (d / "x.cpp.ci").write_text("\n".join(lines) + "\n}\n")


def use_stack_notes(root: Path, monkeypatch, text: str = WORKER_THREAD_NOTES) -> Path:
    """Writes the threads' notes `text` to root/stack_check.yaml and has the check read them
    instead of the tree's (for the test's duration: pytest's monkeypatch)."""
    from k32.mcu import stacks

    notes = root / "stack_check.yaml"
    notes.write_text(text)
    monkeypatch.setattr(stacks, "ANNOTATIONS", notes)
    return notes
