"""Builds every fuzz target in one instrumented build dir (build/fuzz: the parsers compiled
once with clang, coverage, ASan and UBSan, then linked into each target) and runs them."""

import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from k32 import REPO_ROOT

from .seeds import write_seeds
from .targets import Target

BUILD_DIR = REPO_ROOT / "build" / "fuzz"
# What libFuzzer writes for an input that failed, per kind of failure.
FAILURE_PREFIXES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


class FuzzError(Exception):
    pass


@dataclass
class Result:
    target: str
    seconds: int
    executions: int
    crashes: int  # inputs that crashed, leaked, hung or broke a check (libFuzzer stops at one)
    corpus: int  # inputs in the corpus afterwards
    artifacts: list[Path]
    tail: str  # the end of libFuzzer's output (the report when it failed)

    @property
    def ok(self) -> bool:
        return self.crashes == 0


def build(targets: list[Target], jobs: int) -> dict[str, Path]:
    """Configures build/fuzz (once) and builds the requested targets; name -> binary."""
    if not shutil.which("clang++"):
        raise FuzzError("the fuzz targets need clang++ (libFuzzer): apt-get install clang")
    env = dict(os.environ, CC="clang", CXX="clang++")
    cfg = [
        "cmake",
        "-S",
        str(REPO_ROOT / "firmware"),
        "-B",
        str(BUILD_DIR),
        "-DCMAKE_BUILD_TYPE=Debug",
        "-DK32_FUZZ=ON",
    ]
    if shutil.which("ccache"):
        cfg += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    r = subprocess.run(cfg, check=False, capture_output=True, text=True, env=env)
    if r.returncode:
        raise FuzzError(f"configuring {BUILD_DIR} failed:\n{(r.stdout + r.stderr)[-3000:]}")
    cmd = ["nice", "cmake", "--build", str(BUILD_DIR), f"-j{jobs}", "--target", *[t.binary_name for t in targets]]
    r = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env)
    if r.returncode:
        raise FuzzError(f"building the fuzz targets failed:\n{(r.stdout + r.stderr)[-3000:]}")
    return {t.name: BUILD_DIR / t.binary_name for t in targets}


def _last_int(pattern: str, text: str) -> int:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0


def run_one(target: Target, binary: Path, seconds: int, corpus_root: Path | None = None) -> Result:
    corpus = (corpus_root or BUILD_DIR / "corpus") / target.name
    write_seeds(target.name, corpus)
    artifacts = BUILD_DIR / "artifacts" / target.name
    artifacts.mkdir(parents=True, exist_ok=True)
    before = set(artifacts.iterdir())
    cmd = [
        "nice",
        str(binary),
        str(corpus),
        f"-max_total_time={seconds}",
        "-timeout=10",
        "-rss_limit_mb=2048",
        f"-max_len={target.max_len}",
        f"-artifact_prefix={artifacts}/",
        "-print_final_stats=1",
    ]
    if target.dictionary:
        cmd.append(f"-dict={target.dictionary}")
    started = time.monotonic()
    r = subprocess.run(cmd, check=False, capture_output=True, text=True, errors="replace")
    elapsed = int(time.monotonic() - started)
    out = r.stderr
    new = sorted(p for p in set(artifacts.iterdir()) - before if p.name.startswith(FAILURE_PREFIXES))
    crashes = len(new) if new else (1 if r.returncode else 0)
    executions = _last_int(r"stat::number_of_executed_units:\s*(\d+)", out) or _last_int(r"#(\d+)\s", out)
    corpus_size = sum(1 for _ in corpus.iterdir())
    tail = "\n".join(out.strip().splitlines()[-40 if crashes else -3 :])
    return Result(target.name, elapsed, executions, crashes, corpus_size, new, tail)


def run(targets: list[Target], seconds: int, jobs: int, parallel: int = 1, report=print) -> list[Result]:
    """Builds, then runs each target for `seconds`, `parallel` at a time."""
    binaries = build(targets, jobs)
    results = []
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        futures = [pool.submit(run_one, t, binaries[t.name], seconds) for t in targets]
        for f in futures:
            res = f.result()
            report(res)
            results.append(res)
    return results
