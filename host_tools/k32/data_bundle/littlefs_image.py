"""The LittleFS image of the data partition, with the geometry esp_littlefs uses on the
boards (4 KiB blocks, 256-byte pages, 64-byte names), so the firmware mounts it as is."""

from __future__ import annotations

from littlefs import LittleFS

BLOCK_SIZE = 4096  # flash sector
PAGE_SIZE = 256  # CONFIG_LITTLEFS_PAGE_SIZE (read and prog size)
NAME_MAX = 64  # CONFIG_LITTLEFS_OBJ_NAME_LEN
LOOKAHEAD = 128


def build(files: dict[str, bytes], partition_bytes: int) -> bytes:
    """files: relative path -> bytes. Written in sorted order: the image is a function of
    its content only (littlefs stores no timestamps)."""
    if partition_bytes % BLOCK_SIZE:
        raise ValueError(f"data partition size {partition_bytes:#x} is not a multiple of {BLOCK_SIZE}")
    fs = LittleFS(
        block_size=BLOCK_SIZE,
        block_count=partition_bytes // BLOCK_SIZE,
        read_size=PAGE_SIZE,
        prog_size=PAGE_SIZE,
        cache_size=PAGE_SIZE,
        lookahead_size=LOOKAHEAD,
        name_max=NAME_MAX,
        block_cycles=512,
    )
    for name in sorted(files):
        for part in name.split("/"):
            if len(part.encode("utf-8")) > NAME_MAX:
                raise ValueError(f"{name}: path component longer than {NAME_MAX} bytes")
        parent = name.rpartition("/")[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        with fs.open(name, "wb") as fh:
            fh.write(files[name])
    return bytes(fs.context.buffer)


def read(image: bytes) -> dict[str, bytes]:
    """Every file of an image (used by tests and `k32 bundle --check`)."""
    fs = LittleFS(
        block_size=BLOCK_SIZE,
        block_count=len(image) // BLOCK_SIZE,
        read_size=PAGE_SIZE,
        prog_size=PAGE_SIZE,
        cache_size=PAGE_SIZE,
        lookahead_size=LOOKAHEAD,
        name_max=NAME_MAX,
        mount=False,
    )
    fs.context.buffer[:] = image
    fs.mount()
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for n in names:
            path = f"{root.rstrip('/')}/{n}".lstrip("/")
            with fs.open(path, "rb") as fh:
                out[path] = fh.read()
    return out
