"""A pod image of one's own: SRC.c or a folder of .c files compiled exactly as the shipped
images (clang --target=wasm32 with the pod ABI header and images/lib), with a .sha256 beside
it, and optionally installed into a card directory's wasm://sd/ layout."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from .build import ABI_INCLUDE, CFLAGS, LDFLAGS, NAME_RE, SHARED_INCLUDE, Image, ImageBuildError, find_clang

MAX_SOURCES = 256


def image_name(src: Path, name: str | None) -> str:
    n = name or (src.stem if src.is_file() else src.name)
    if not NAME_RE.match(n):
        raise ImageBuildError(f"image name {n!r}: lowercase letters, digits and '-' (1-32, a DNS label); pass --name")
    return n


def build_source(src: Path, out_dir: Path, name: str | None = None, clang: str | None = None) -> Image:
    src = Path(src)
    if src.is_file():
        if src.suffix != ".c":
            raise ImageBuildError(f"{src}: not a .c file")
        sources = [src]
    elif src.is_dir():
        sources = sorted(src.glob("*.c"))
        if not sources:
            raise ImageBuildError(f"{src}: no .c sources")
        if len(sources) > MAX_SOURCES:
            raise ImageBuildError(f"{src}: more than {MAX_SOURCES} .c files")
    else:
        raise ImageBuildError(f"{src}: no such file or folder")
    n = image_name(src, name)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    wasm = out_dir / f"{n}.wasm"
    libs = sorted(str(p) for p in SHARED_INCLUDE.glob("*.c"))
    cmd = [
        clang or find_clang(),
        *CFLAGS,
        f"-I{SHARED_INCLUDE}",
        f"-I{ABI_INCLUDE}",
        *LDFLAGS,
        "-o",
        str(wasm),
        *[str(s) for s in sources],
        *libs,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise ImageBuildError(f"image {n}: compile failed:\n{r.stderr.strip()}")
    data = wasm.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    (out_dir / f"{n}.wasm.sha256").write_text(f"{digest}  {n}.wasm\n")
    return Image(n, wasm, digest, len(data))


def install_on_card(image: Image, card: Path) -> Path:
    """<card>/kube32/images/<name>/<name>.wasm: where a node's wasm://sd/<name> is read."""
    dest = Path(card) / "kube32" / "images" / image.name
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / f"{image.name}.wasm"
    shutil.copyfile(image.wasm, target)
    return target
