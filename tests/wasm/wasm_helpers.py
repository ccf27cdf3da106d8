"""Helpers the wasm tests import by name (not from conftest.py: with several test folders given,
`from conftest import` finds whichever conftest pytest loaded last)."""

import shutil
import subprocess


def wasi_clang_works(tmp_path) -> bool:
    """clang with a WASI sysroot can build a C program here (wasi-libc, libclang-rt-14-dev-wasm32)."""
    if not shutil.which("clang"):
        return False
    src = tmp_path / "probe.c"
    src.write_text("int main(void){return 0;}")
    return (
        subprocess.run(
            ["clang", "--target=wasm32-wasi", "-O2", str(src), "-o", str(tmp_path / "probe.wasm")], capture_output=True
        ).returncode
        == 0
    )
