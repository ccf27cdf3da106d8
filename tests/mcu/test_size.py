"""`k32 bench size` over real arm-none-eabi objects: sections sorted into .text/.rodata/
.data/.bss, objects into components by their source folder, and the src/ .text verdict."""

import subprocess

from k32.mcu import size


def _obj(root, folder, name, source):
    d = root / "CMakeFiles" / folder
    d.mkdir(parents=True, exist_ok=True)
    c = d / f"{name}.c"
    c.write_text(source)
    subprocess.run(
        [
            "arm-none-eabi-gcc",
            "-mcpu=cortex-m4",
            "-mthumb",
            "-Os",
            "-ffunction-sections",
            "-fdata-sections",
            "-c",
            str(c),
            "-o",
            str(d / f"{name}.c.obj"),
        ],
        check=True,
    )


def test_components_and_kinds(tmp_path):
    _obj(
        tmp_path,
        "k32core.dir/src/core/json",
        "a",
        "const char table[300] = {1};\nint counter = 5;\nchar buf[64];\nint f(int x) { return table[x] + counter++ + buf[x]; }\n",
    )
    _obj(tmp_path, "k32wasm.dir/src/wasm", "b", "int g(int x) { return x * 3; }\n")
    _obj(tmp_path, "k32core.dir/generated", "c", "const char blob[1000] = {1};\n")
    r = size.measure(tmp_path)
    json_c = r["components"]["core/json"]
    assert json_c["rodata"] >= 300 and json_c["data"] == 4 and json_c["bss"] == 64 and json_c["text"] > 0
    assert r["components"]["wasm"]["text"] > 0 and r["components"]["wasm"]["rodata"] == 0
    assert r["components"]["generated"]["rodata"] >= 1000
    # generated data is not part of src/
    assert r["src_total"]["rodata"] == json_c["rodata"]
    assert r["verdicts"]["src_text"]["ok"]
    assert r["verdicts"]["wasm_text"]["bytes"] == r["components"]["wasm"]["text"]


def test_src_text_over_the_limit_fails(tmp_path, monkeypatch):
    _obj(tmp_path, "k32app.dir/src/app", "a", "int h(int x) { return x + 1; }\n")
    monkeypatch.setattr(size, "SRC_TEXT_MAX", 1)
    assert not size.measure(tmp_path)["verdicts"]["src_text"]["ok"]


def test_dispatch_loop_reported_apart(tmp_path):
    """execute()'s own .text (the part a board may put in IRAM) is counted apart from the rest
    of src/wasm (here a C function carrying execute()'s mangled name, and a cold one)."""
    loop = "int _ZN3k324wasm7executeEv(int x) { return x * 7 + (x >> 3); }\n"
    _obj(tmp_path, "k32wasm.dir/src/wasm", "exec", loop + "int cold(int x) { return x / 3; }\n")
    r = size.measure(tmp_path)
    got = r["verdicts"]["wasm_loop_text"]["bytes"]
    assert 0 < got < r["components"]["wasm"]["text"]
