"""The fuzz targets: one per firmware/fuzz/fuzz_<name>.cpp, with the per-target libFuzzer
settings and where its seeds and dictionary come from."""

from dataclasses import dataclass
from pathlib import Path

from k32 import REPO_ROOT

FUZZ_DIR = REPO_ROOT / "firmware" / "fuzz"
SEEDS_DIR = FUZZ_DIR / "seeds"  # committed seeds: seeds/<target>/*
DICT_DIR = FUZZ_DIR / "dict"  # libFuzzer dictionaries: dict/<target>.dict


@dataclass(frozen=True)
class Target:
    name: str  # "json"; the binary is k32-fuzz-<name>
    source: Path
    max_len: int  # longest input libFuzzer makes

    @property
    def binary_name(self) -> str:
        return f"k32-fuzz-{self.name}"

    @property
    def dictionary(self) -> Path | None:
        d = DICT_DIR / f"{self.name}.dict"
        return d if d.exists() else None


# Inputs longer than this find nothing new and slow every execution down; a Wasm module or a
# pipelined HTTP stream needs more room than a console line.
MAX_LEN = {"wasm": 8192, "http": 8192, "console": 4096, "store-load": 16384}
DEFAULT_MAX_LEN = 4096


def all_targets() -> dict[str, Target]:
    out = {}
    for src in sorted(FUZZ_DIR.glob("fuzz_*.cpp")):
        name = src.stem.removeprefix("fuzz_").replace("_", "-")
        out[name] = Target(name, src, MAX_LEN.get(name, DEFAULT_MAX_LEN))
    return out
