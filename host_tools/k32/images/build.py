"""Compiles images/<name>/*.c with clang --target=wasm32 -nostdlib into <out>/<name>.wasm."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from k32 import REPO_ROOT

IMAGES_DIR = REPO_ROOT / "images"
DEFAULT_OUT = REPO_ROOT / "build" / "images"
ABI_INCLUDE = REPO_ROOT / "firmware" / "include" / "runtime"
SHARED_INCLUDE = IMAGES_DIR / "lib"  # helpers shared by the shipped images, not an image
NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$")
# One page of linear memory: the echo example's limits.memory is 64Ki, so images must start
# in a single page. -fno-builtin keeps clang from turning the loops of images/lib/mem.c into
# calls to themselves. __heap_base is exported so a node may give an image that never sizes
# its memory only the bytes below it (data + stack). The shadow stack's size comes from
# boards/common.yaml (a pod holds every byte of it); it sits below the data (--stack-first),
# so a frame past it traps as out of bounds rather than overwriting the image's data.
CFLAGS = [
    "--target=wasm32",
    "-nostdlib",
    "-fno-builtin",
    "-O2",
    "-Wall",
    "-Werror",
    "-ffile-prefix-map=" + str(REPO_ROOT) + "=.",
]
LDFLAGS = [
    "-Wl,--no-entry",
    "-Wl,--stack-first",
    "-Wl,--initial-memory=65536",
    "-Wl,--export=__heap_base",
    "-Wl,--strip-debug",
]


class ImageBuildError(RuntimeError):
    pass


@dataclass
class Image:
    name: str
    wasm: Path
    sha256: str
    size: int


def image_names(images_dir: Path = IMAGES_DIR) -> list[str]:
    names = []
    for d in sorted(images_dir.iterdir()) if images_dir.is_dir() else []:
        if d.is_dir() and d != SHARED_INCLUDE and d.name != "web" and any(d.glob("*.c")):
            if not NAME_RE.match(d.name):
                raise ImageBuildError(f"{d}: image names are lowercase DNS labels (a-z, 0-9, '-')")
            names.append(d.name)
    return names


def find_clang() -> str:
    for c in ("clang", "clang-16", "clang-15", "clang-14"):
        if shutil.which(c):
            return c
    raise ImageBuildError("clang not found: install Debian clang and lld (scripts/deps/apt-packages.txt)")


def shadow_stack_bytes(shipped: bool = True) -> int:
    """The shadow stack an image is linked with (boards/common.yaml): the shipped images' own
    measured one, or the larger one for an image built from one's own sources."""
    from k32.boards import load_image_stacks

    return load_image_stacks()["shipped" if shipped else "user"]


def compile_image(
    name: str, sources: list[Path | str], out_dir: Path, clang: str | None = None, shipped: bool = True
) -> Image:
    """<out_dir>/<name>.wasm from `sources` and images/lib, as every image is compiled (the
    pod ABI header, the shared flags), with its digest beside it in <name>.wasm.sha256."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    wasm = out_dir / f"{name}.wasm"
    libs = sorted(str(p) for p in SHARED_INCLUDE.glob("*.c"))
    cmd = [
        clang or find_clang(),
        *CFLAGS,
        f"-I{SHARED_INCLUDE}",
        f"-I{ABI_INCLUDE}",
        *LDFLAGS,
        f"-Wl,-z,stack-size={shadow_stack_bytes(shipped)}",
        "-o",
        str(wasm),
        *[str(s) for s in sources],
        *libs,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise ImageBuildError(f"image {name}: compile failed:\n{r.stderr.strip()}")
    data = wasm.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    (out_dir / f"{name}.wasm.sha256").write_text(f"{digest}  {name}.wasm\n")
    return Image(name, wasm, digest, len(data))


def build_image(name: str, out_dir: Path, images_dir: Path = IMAGES_DIR, clang: str | None = None) -> Image:
    src_dir = images_dir / name
    sources = sorted(src_dir.glob("*.c"))
    if not sources:
        raise ImageBuildError(f"{src_dir}: no .c sources")
    return compile_image(name, sources, out_dir, clang)


def build_all(out_dir: Path = DEFAULT_OUT, images_dir: Path = IMAGES_DIR, only: list[str] | None = None) -> list[Image]:
    names = image_names(images_dir)
    if only:
        missing = [n for n in only if n not in names]
        if missing:
            raise ImageBuildError(f"no such image: {', '.join(missing)} (have {', '.join(names)})")
        names = [n for n in names if n in only]
    clang = find_clang()
    images = [build_image(n, out_dir, images_dir, clang) for n in names]
    manifest = {i.name: {"file": i.wasm.name, "sha256": i.sha256, "size": i.size} for i in images}
    (out_dir / "images.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return images
