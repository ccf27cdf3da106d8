"""Building a board's data bundle: everything Python generates for one board, content-hashed.

Layout of a bundle directory (all paths relative, sorted, LF text, no timestamps):
    bundle.json             the manifest: every artifact with size and sha256, and `digest`
    partition-table.bin     boards only: ESP-IDF binary table with its MD5 entry
    data.littlefs.bin       boards only: LittleFS image of the data partition
    openapi/ ca/ images/ web/   the content (also inside data.littlefs.bin, with a
                            content manifest /bundle.json that carries the same digest)

The digest is sha256 over "<name> <sha256>\\n" lines of every artifact except the
LittleFS image (which holds the digest itself and is a function of the others), plus the
board and flash size. The firmware prints it at boot from /bundle.json on its data partition."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from k32 import REPO_ROOT
from k32.boards import load_board
from k32.boards.partition_table import to_binary

from . import littlefs_image
from .artifacts import PRODUCERS, Artifact, BundleError
from .manifest import DATA_IMAGE, FORMAT, MANIFEST, PARTITION_TABLE, canonical


def default_out(board: str) -> Path:
    return REPO_ROOT / "build" / "bundle" / board


def digest_of(header: dict, artifacts: list[Artifact]) -> str:
    h = hashlib.sha256()
    h.update(f"k32-bundle {FORMAT} {header['board']} {header.get('flashSize') or '-'}\n".encode())
    for a in sorted(artifacts, key=lambda a: a.name):
        h.update(f"{a.name} {a.sha256}\n".encode())
    return h.hexdigest()


def _entry(a: Artifact, board) -> dict:
    e = {"name": a.name, "kind": a.kind, "size": len(a.data), "sha256": a.sha256}
    if a.name == PARTITION_TABLE:
        e["offset"] = board.partition_table_offset
    elif a.name == DATA_IMAGE:
        e["offset"] = board.partition(board.data_partition).offset
    return e


def build(
    board_name: str, out_dir: Path | None = None, flash_size: str | None = None, images_dir: Path | None = None
) -> dict:
    """Builds the bundle into out_dir and returns its manifest."""
    board = load_board(board_name, flash_size)
    out_dir = Path(out_dir or default_out(board.name))
    artifacts: list[Artifact] = []
    for produce in PRODUCERS:
        if produce.__code__.co_argcount > 1:
            artifacts += produce(board, images_dir)
        else:
            artifacts += produce(board)
    names = [a.name for a in artifacts]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise BundleError(f"two artifacts named {sorted(dup)[0]}")
    header = {"format": FORMAT, "board": board.name, "chip": board.chip, "flashSize": board.flash_size}
    if board.flashable:
        artifacts.append(
            Artifact(PARTITION_TABLE, to_binary(board.partitions), "partition-table", on_data_partition=False)
        )
    digest = digest_of(header, artifacts)
    content = [a for a in artifacts if a.on_data_partition]
    if board.flashable:
        inner = {
            **header,
            "digest": digest,
            "artifacts": [_entry(a, board) for a in sorted(content, key=lambda a: a.name)],
        }
        files = {a.name: a.data for a in content}
        files[MANIFEST] = canonical(inner)
        part = board.partition(board.data_partition)
        try:
            image = littlefs_image.build(files, part.size)
        except Exception as e:  # littlefs raises its own error types (e.g. no space)
            raise BundleError(f"data partition {part.name!r} ({part.size} bytes): {e}") from None
        artifacts.append(Artifact(DATA_IMAGE, image, "data-image", on_data_partition=False))
    manifest = {
        **header,
        "digest": digest,
        "artifacts": [_entry(a, board) for a in sorted(artifacts, key=lambda a: a.name)],
    }
    _write(out_dir, artifacts, manifest)
    return manifest


def _write(out_dir: Path, artifacts: list[Artifact], manifest: dict) -> None:
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / MANIFEST).is_file():
        raise BundleError(f"{out_dir}: exists and is not a bundle directory; refusing to overwrite it")
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for a in artifacts:
        target = tmp / a.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(a.data)
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / MANIFEST).write_bytes(canonical(manifest))
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tmp.rename(out_dir)


def digest_for(board_name: str) -> str:
    """Builds (or refreshes) build/bundle/<board> and returns its digest: what the simulator
    passes to `k32-node --bundle` so STATUS and `k32 sim status` show it."""
    # Several processes (test workers, a `k32 sim up` beside them) may refresh the same
    # directory at once; its .tmp sibling and the swap into place are not safe to share.
    import fcntl

    lock_path = default_out(board_name).with_name(f".{board_name}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return build(board_name)["digest"]
