"""A pod image of one's own: SRC.c or a folder of .c files compiled exactly as the shipped
images (clang --target=wasm32 with the pod ABI header and images/lib), with a .sha256 beside
it, and optionally installed into a card directory's wasm://sd/ layout."""

from __future__ import annotations

import shutil
from pathlib import Path

from .build import NAME_RE, Image, ImageBuildError, compile_image

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
    return compile_image(image_name(src, name), sources, out_dir, clang, shipped=False)


def install_on_card(image: Image, card: Path) -> Path:
    """<card>/kube32/images/<name>/<name>.wasm: where a node's wasm://sd/<name> is read."""
    dest = Path(card) / "kube32" / "images" / image.name
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / f"{image.name}.wasm"
    shutil.copyfile(image.wasm, target)
    return target
