"""The value stack bound the interpreter computes at load (module_stack_bound, shown by
`k32-wasm stack-bound`) against what the interpreter itself demands when it runs: a run under
exactly the bound's slots (and call depth) completes, one slot (or frame) less traps with
"call stack exhausted" on the worst path. The executor reserves a callee's whole frame as the
call starts, so the least limit a run survives is its real peak; on these straight-line
programs the bound must be that peak, not merely above it."""

import json
import os
import subprocess
import sys

import pytest

from k32.boards import available, load_board
from k32.images.value_stack import bound, check

# main -> mid -> leaf, operands piled below each call so every frame starts high in its caller.
CHAIN = """
(module
  (func $leaf (param i32 i32) (result i32) (local i64 i64 i64)
    local.get 0 local.get 1 i32.add)
  (func $mid (param i32) (result i32) (local f64)
    i32.const 1 i32.const 2 i32.const 3 i32.add i32.add drop
    i32.const 5 local.get 0 local.get 0 call $leaf i32.add)
  (func (export "main") (result i32)
    i32.const 7 i32.const 8 i32.const 9 call $mid i32.add i32.add))
"""

# The deepest point is a host call: its arguments are copied above its results.
HOST_DEEPEST = """
(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (memory 1)
  (func (export "main") (result i32) (local i32 i32 i32 i32)
    i32.const 1 i32.const 2
    i32.const 1 i64.const 1 i32.const 64 call $clock
    i32.add i32.add))
"""

# call_indirect: the worst function of the called type that the table can hold counts; a
# deeper function of another type does not.
INDIRECT = """
(module
  (type $t (func (param i32) (result i32)))
  (table 3 funcref)
  (elem (i32.const 0) $shallow $deep $other)
  (func $shallow (type $t) local.get 0)
  (func $deep (type $t) (local i64 i64 i64 i64 i64 i64)
    local.get 0 i32.const 1 i32.const 2 i32.const 3 i32.add i32.add i32.add)
  (func $other (param i64) (result i64) (local i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
    local.get 0)
  (func (export "main") (param i32) (result i32)
    i32.const 4 i32.const 5 local.get 0 local.get 0 call_indirect (type $t) i32.add i32.add))
"""

# A function a body puts in the table (ref.func, table.set) counts as much as an element's.
REF_IN_BODY = """
(module
  (type $t (func (result i32)))
  (table 1 funcref)
  (elem declare func $deep)
  (func $deep (type $t) (local i64 i64 i64 i64 i64 i64 i64 i64) i32.const 3)
  (func (export "main") (result i32)
    i32.const 0 ref.func $deep table.set 0
    i32.const 1 i32.const 0 call_indirect (type $t) i32.add))
"""

DEEP_CALLS = """
(module
  (func $f4 (result i32) i32.const 4)
  (func $f3 (result i32) call $f4)
  (func $f2 (result i32) call $f3)
  (func $f1 (result i32) call $f2)
  (func (export "main") (result i32) call $f1))
"""

RECURSIVE = """
(module
  (func $fib (export "fib") (param i32) (result i32)
    local.get 0 i32.const 2 i32.lt_u
    if (result i32) local.get 0
    else local.get 0 i32.const 1 i32.sub call $fib local.get 0 i32.const 2 i32.sub call $fib i32.add end))
"""

MUTUAL = """
(module
  (func $even (export "even") (param i32) (result i32)
    local.get 0 i32.eqz if (result i32) i32.const 1 else local.get 0 i32.const 1 i32.sub call $odd end)
  (func $odd (param i32) (result i32)
    local.get 0 i32.eqz if (result i32) i32.const 0 else local.get 0 i32.const 1 i32.sub call $even end))
"""

EXPORTED_TABLE = """
(module
  (type $t (func (result i32)))
  (table (export "t") 1 funcref)
  (func (export "main") (result i32) i32.const 0 call_indirect (type $t)))
"""


def wasm_of(tmp_path, name, text):
    wat = tmp_path / f"{name}.wat"
    wat.write_text(text)
    out = tmp_path / f"{name}.wasm"
    subprocess.run(["wat2wasm", str(wat), "-o", str(out)], check=True)
    return out


def run(tool, wasm, *args, slots=None, depth=None):
    cmd = [str(tool), "run", "--invoke", "main"]
    if slots is not None:
        cmd += ["--stack-slots", str(slots)]
    if depth is not None:
        cmd += ["--call-depth", str(depth)]
    return subprocess.run([*cmd, str(wasm), *map(str, args)], capture_output=True, text=True)


def assert_peak(tool, wasm, slots, *args, result):
    ok = run(tool, wasm, *args, slots=slots)
    assert ok.returncode == 0 and ok.stdout.strip() == result, (slots, ok.stderr)
    short = run(tool, wasm, *args, slots=slots - 1)
    assert short.returncode == 3 and "call stack exhausted" in short.stderr, (slots, short.stdout, short.stderr)


def test_a_chain_of_calls_needs_exactly_its_bound(tmp_path, tool):
    wasm = wasm_of(tmp_path, "chain", CHAIN)
    b = bound(wasm, tool)
    # main: 2 operands below its call; mid (its frame from main's slot 2): 1 param + 1 local, 1
    # operand below its call; leaf (from mid's slot 3): 2 params + 3 locals + 2 operands.
    assert b.slots == 2 + (2 + 1) + (2 + 3 + 2), b
    assert_peak(tool, wasm, b.slots, result="38")


def test_a_host_call_at_the_deepest_point(tmp_path, tool):
    wasm = wasm_of(tmp_path, "host", HOST_DEEPEST)
    b = bound(wasm, tool)
    # 4 locals, 2 operands below the call's 3 arguments: max(3 params, 1 result) + 3 copied
    assert b.slots == 4 + 2 + 3 + 3, b
    assert_peak(tool, wasm, b.slots, result="3")


def test_call_indirect_takes_the_worst_function_of_its_type(tmp_path, tool):
    wasm = wasm_of(tmp_path, "indirect", INDIRECT)
    b = bound(wasm, tool)
    # main's call starts at its slot 3 (1 param + 2 operands); $deep: 1 + 6 locals + 4 operands
    assert b.slots == 3 + 1 + 6 + 4, b
    assert_peak(tool, wasm, b.slots, 1, result="16")  # $deep: the bound is its peak
    shallow = run(tool, wasm, 0, slots=b.slots)  # $shallow: within the bound, far from it
    assert shallow.returncode == 0 and shallow.stdout.strip() == "9", shallow.stderr


def test_a_function_a_body_puts_in_a_table_counts(tmp_path, tool):
    wasm = wasm_of(tmp_path, "refbody", REF_IN_BODY)
    b = bound(wasm, tool)
    assert b.slots == 1 + 8 + 1, b  # the call at main's slot 1; $deep: 8 locals + 1 operand
    assert_peak(tool, wasm, b.slots, result="4")


def test_call_depth_is_bounded_exactly(tmp_path, tool):
    wasm = wasm_of(tmp_path, "deep", DEEP_CALLS)
    b = bound(wasm, tool)
    assert b.frames == 5, b
    ok = run(tool, wasm, depth=b.frames)
    assert ok.returncode == 0 and ok.stdout.strip() == "4", ok.stderr
    short = run(tool, wasm, depth=b.frames - 1)
    assert short.returncode == 3 and "call stack exhausted" in short.stderr, short.stderr


@pytest.mark.parametrize(
    "name,text,why",
    [
        ("fib", RECURSIVE, "calls itself (recursion)"),
        ("mutual", MUTUAL, "is reached again from its own calls (recursion)"),
        ("shared", EXPORTED_TABLE, "calls through a shared table"),
    ],
)
def test_what_has_no_bound_is_reported_unbounded(tmp_path, tool, name, text, why):
    b = bound(wasm_of(tmp_path, name, text), tool)
    assert b.slots is None and why in b.why, b


def test_every_shipped_image_fits_every_board(tool):
    # the CLI builds the images from images/ as the firmware bundle embeds them
    r = subprocess.run(
        [sys.executable, "-m", "k32.cli", "check", "value-stacks", "--json"],
        capture_output=True,
        text=True,
        env=_env(tool),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    rows = json.loads(r.stdout)["rows"]
    assert {row["board"] for row in rows} == set(available())
    shipped = {row["image"] for row in rows}
    assert "echo" in shipped and len(shipped) >= 5, shipped
    for row in rows:
        budget = load_board(row["board"]).budgets["wasm_value_stack"]["bytes"]
        assert row["unbounded"] is None and row["bytes"] <= budget, row


def test_the_check_fails_an_image_that_does_not_fit(tmp_path, tool):
    # 130 locals: more than the 128 slots of a 1 KiB value stack
    locals_ = " ".join(["i64"] * 130)
    big = wasm_of(tmp_path, "big", f'(module (func (export "main") (local {locals_})))')
    r = check({"big": big}, tool, ["esp32", "s3"])
    verdict = {row["board"]: row["ok"] for row in r["rows"]}
    assert verdict == {"esp32": False, "s3": True} and not r["ok"], r
    cli = subprocess.run(
        [sys.executable, "-m", "k32.cli", "check", "value-stacks", "--board", "esp32", "--wasm", str(big)],
        capture_output=True,
        text=True,
        env=_env(tool),
    )
    assert cli.returncode == 1 and "DOES NOT FIT" in cli.stdout, cli.stdout + cli.stderr
    rec = wasm_of(tmp_path, "rec", RECURSIVE)
    assert not check({"rec": rec}, tool, ["s3"])["ok"]


def _env(tool):
    return {**os.environ, "K32_WASM_TOOL": str(tool)}
