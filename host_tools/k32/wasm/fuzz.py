"""Seeds for the Wasm fuzz target (firmware/fuzz/fuzz_wasm.cpp): every module of our .wast
conformance tests. Building and running is `k32 fuzz` (k32.fuzz)."""

import tempfile
from pathlib import Path

from k32 import REPO_ROOT

from .spectest import SpecError, wast_to_json

WAST_DIR = REPO_ROOT / "tests" / "wasm" / "wast"


def module_seeds() -> list[bytes]:
    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        for wast in sorted(WAST_DIR.glob("*.wast")):
            try:
                wast_to_json(wast, Path(tmp))
            except SpecError:
                continue
        for wasm in sorted(Path(tmp).glob("*.wasm")):
            seeds.append(wasm.read_bytes())
    return seeds
