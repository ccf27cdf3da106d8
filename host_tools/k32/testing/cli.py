"""The k32 command line run the way a user runs it, for tests: a fresh interpreter in the
repository, output captured, no stdin, and none of the user's own settings that would change
what the command does."""

from __future__ import annotations

import os
import subprocess
import sys

from k32 import REPO_ROOT


def run_k32(*args, timeout: float = 300, env: dict | None = None, drop=("K32_TOKEN",)) -> subprocess.CompletedProcess:
    """`python -m k32.cli ARGS`; the environment is this one without the variables in drop,
    plus env."""
    full = {k: v for k, v in os.environ.items() if k not in drop}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "k32.cli", *map(str, args)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full,
        stdin=subprocess.DEVNULL,
        check=False,
    )
