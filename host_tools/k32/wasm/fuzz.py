"""Builds the libFuzzer target firmware/fuzz/fuzz_wasm.cpp (ASan+UBSan) and runs it with a
seed corpus made from our conformance tests."""
import subprocess
import tempfile
from pathlib import Path

from k32 import REPO_ROOT

from .spectest import SpecError, wast_to_json

FUZZ_SRC = REPO_ROOT / "firmware" / "fuzz" / "fuzz_wasm.cpp"
WASM_SRC = REPO_ROOT / "firmware" / "src" / "wasm"
WAST_DIR = REPO_ROOT / "tests" / "wasm" / "wast"
BUILD_DIR = REPO_ROOT / "build" / "wasm-fuzz"


class FuzzError(Exception):
    pass


def build() -> Path:
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    out = BUILD_DIR / "k32-wasm-fuzz"
    cmd = ["nice", "clang++", "-std=c++17", "-O1", "-g", "-fno-exceptions", "-fno-rtti",
           "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined",
           "-DK32_WASM_SINGLE_DISPATCH",  # see exec.cpp: keeps the instrumented build fast
           "-I", str(WASM_SRC), str(FUZZ_SRC), *map(str, sorted(WASM_SRC.glob("*.cpp"))),
           "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise FuzzError(f"building the fuzzer failed:\n{r.stderr[-3000:]}")
    return out


def seed_corpus(corpus: Path) -> int:
    """Every module of our .wast tests becomes a seed; returns how many."""
    corpus.mkdir(parents=True, exist_ok=True)
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for wast in sorted(WAST_DIR.glob("*.wast")):
            try:
                wast_to_json(wast, Path(tmp))
            except SpecError:
                continue
        for wasm in Path(tmp).glob("*.wasm"):
            (corpus / wasm.name).write_bytes(wasm.read_bytes())
            n += 1
    return n


def run(seconds: int, corpus: Path | None = None) -> tuple[bool, str]:
    binary = build()
    corpus = corpus or BUILD_DIR / "corpus"
    seed_corpus(corpus)
    cmd = [str(binary), str(corpus), f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=1024",
           "-max_len=8192", f"-artifact_prefix={BUILD_DIR}/"]
    r = subprocess.run(["nice", *cmd], capture_output=True, text=True)
    tail = "\n".join(r.stderr.strip().splitlines()[-15:])
    return r.returncode == 0, tail
