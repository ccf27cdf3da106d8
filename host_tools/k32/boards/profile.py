"""Loading and validating a board profile (boards/<name>.yaml) and the board-independent
constants (boards/common.yaml).

Every budget the firmware uses is read from here; `gen_header` turns a profile into
k32_board.h so C++ never writes a number down a second time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from k32 import REPO_ROOT

BOARDS_DIR = REPO_ROOT / "boards"
COMMON_FILE = "common.yaml"
REGIONS = ("internal", "psram")
WASM_LOOP_PLACES = ("iram", "flash")
ROLES = ("control-plane", "worker")  # what a node runs as (k32-node --role)
# Budget name -> the key it must carry ("bytes" or "count"); every board profile gives each one.
BUDGET_KEYS = {
    "ingress_stack": "bytes",
    "events_stack": "bytes",
    "tls_sessions": "count",
    "tls_session_stack": "bytes",
    "inproc_call_stack": "bytes",
    "inproc_hop_stack": "bytes",
    "resp_head_max_cp": "bytes",
    "resp_head_max_worker": "bytes",
    "nat_table": "bytes",
    "store_object_max": "bytes",
    "store_total_max": "bytes",
    "store_log_max": "bytes",
    "watch_history": "bytes",
    "log_ring": "bytes",
    "log_line_index": "bytes",
    "main_stack": "bytes",
    "api_connections": "count",
    "api_writes": "count",
    "ingress_connections": "count",
    "pod_connections": "count",
    "client_connections": "count",
    "api_conn_stack": "bytes",
    "pod_conn_stack": "bytes",
    "http_accept_stack": "bytes",
    "node_lifecycle_stack": "bytes",
    "heartbeat_stack": "bytes",
    "scheduler_stack": "bytes",
    "kubelet_sync_stack": "bytes",
    "channels_stack": "bytes",
    "ingress_tick_stack": "bytes",
    "reboot_stack": "bytes",
    "console_stack": "bytes",
    "heap_internal": "bytes",
    "heap_psram": "bytes",
    "pod_memory": "bytes",
    "heap_reserve": "bytes",
    "pods_max": "count",
    "node_list_page": "count",
    "events_kept": "bytes",
    "pod_overhead": "bytes",
    "pod_state": "bytes",
    "deployment_overhead": "bytes",
    "metrics_records": "bytes",
    "wasm_value_stack": "bytes",
    "wasm_call_depth": "count",
}
FLASH_MODES = ("qio", "qout", "dio", "dout")
FLASH_FREQS = ("80m", "40m", "26m", "20m", "120m")
SIZE_RE = re.compile(r"^(\d+)MB$")
FLASH_SECTOR = 0x1000
APP_ALIGN = 0x10000


class BoardError(ValueError):
    """A board profile is missing or malformed; the message names file and field."""


@dataclass(frozen=True)
class Partition:
    name: str
    type: str
    subtype: str
    offset: int
    size: int


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    chip: str | None
    psram: bool
    budgets: dict
    flash_size: str | None = None
    flash_sizes: tuple = ()
    flash_mode: str | None = None
    flash_freq: str | None = None
    bootloader_offset: int | None = None
    partition_table_offset: int | None = None
    partitions: tuple = ()
    data_partition: str | None = None
    cores: int | None = None  # CPU cores of the chip (2: the node's tasks are pinned to core 1)
    # Where the interpreter's dispatch loop runs: "iram" (the port build puts it in instruction
    # RAM, as IRAM_ATTR does) or "flash" (through the instruction cache, like all other code).
    wasm_loop: str = "flash"
    roles: tuple = ("control-plane", "worker")  # what a node built for the profile may run as
    source: Path | None = None

    @property
    def flashable(self) -> bool:
        return self.chip is not None

    def partition(self, name: str) -> Partition:
        for p in self.partitions:
            if p.name == name:
                return p
        raise BoardError(f"{self.source}: partitions: no partition named {name!r}")

    @property
    def app_partition(self) -> Partition:
        for p in self.partitions:
            if p.type == "app":
                return p
        raise BoardError(f"{self.source}: partitions: no app partition")


def inproc_chain_stack(board: Board) -> int:
    """Stack beyond its own budget for a thread that starts in-process calls: the last call of
    the longest chain (CALL_CHAIN_MAX callers) still finds inproc_call_stack free after
    CALL_CHAIN_MAX - 1 hops of inproc_hop_stack each."""
    b = board.budgets
    return b["inproc_call_stack"]["bytes"] + (load_common()["CALL_CHAIN_MAX"] - 1) * b["inproc_hop_stack"]["bytes"]


def available() -> list[str]:
    return sorted(p.stem for p in BOARDS_DIR.glob("*.yaml") if p.name != COMMON_FILE)


def flash_size_bytes(text: str) -> int:
    m = SIZE_RE.match(str(text))
    if not m:
        raise BoardError(f"flash size {text!r} is not of the form <n>MB")
    return int(m.group(1)) * 1024 * 1024


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise BoardError(f"{path}: cannot read: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise BoardError(f"{path}: top level must be a mapping")
    return data


def _int(src, field, value, minimum=0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise BoardError(f"{src}: {field}: must be an integer >= {minimum}, got {value!r}")
    return value


def load_common() -> dict:
    """name -> value of every board-independent constant."""
    path = BOARDS_DIR / COMMON_FILE
    data = _read_yaml(path)
    consts = data.get("constants")
    if not isinstance(consts, dict) or not consts:
        raise BoardError(f"{path}: constants: must be a non-empty mapping")
    out = {}
    for key, entry in consts.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", key):
            raise BoardError(f"{path}: constants.{key}: name must be UPPER_SNAKE")
        if not isinstance(entry, dict) or "value" not in entry or "unit" not in entry:
            raise BoardError(f"{path}: constants.{key}: needs value and unit")
        v = entry["value"]
        if entry["unit"] in ("text", "ipv4"):
            if not isinstance(v, str):
                raise BoardError(f"{path}: constants.{key}.value: must be a string")
        else:
            _int(path, f"constants.{key}.value", v)
        out[key] = v
    return out


def load_image_stacks() -> dict:
    """kind ('shipped', 'user') -> bytes of shadow stack a pod image is linked with."""
    path = BOARDS_DIR / COMMON_FILE
    stacks = _read_yaml(path).get("image_stacks")
    if not isinstance(stacks, dict) or set(stacks) != {"shipped", "user"}:
        raise BoardError(f"{path}: image_stacks: must name the shipped and user images' stacks")
    out = {}
    for kind, entry in stacks.items():
        if not isinstance(entry, dict):
            raise BoardError(f"{path}: image_stacks.{kind}: needs bytes")
        out[kind] = _int(path, f"image_stacks.{kind}.bytes", entry.get("bytes"), 16)
    return out


def load_board(name: str, flash_size: str | None = None) -> Board:
    """Load and validate boards/<name>.yaml; flash_size overrides the profile default."""
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_-]+", name or ""):
        raise BoardError(f"board name {name!r} is invalid; known boards: {', '.join(available())}")
    path = BOARDS_DIR / f"{name}.yaml"
    if not path.is_file():
        raise BoardError(f"unknown board {name!r}; known boards: {', '.join(available())}")
    d = _read_yaml(path)
    if d.get("name") != name:
        raise BoardError(f"{path}: name: must be {name!r} (the file name), got {d.get('name')!r}")
    psram = d.get("psram")
    if not isinstance(psram, bool):
        raise BoardError(f"{path}: psram: must be true or false")
    budgets = _budgets(path, d.get("budgets"), psram)
    chip = d.get("chip")
    roles = d.get("roles")
    if not isinstance(roles, list) or not roles or any(r not in ROLES for r in roles) or len(set(roles)) != len(roles):
        raise BoardError(f"{path}: roles: must be a non-empty list of {', '.join(ROLES)}, got {roles!r}")
    common = dict(
        name=name,
        description=str(d.get("description", "")),
        chip=chip,
        psram=psram,
        budgets=budgets,
        roles=tuple(roles),
        source=path,
    )
    if chip is None:
        if flash_size is not None:
            raise BoardError(f"board {name!r} has no flash; --flash-size does not apply")
        return Board(**common)
    if not isinstance(chip, str):
        raise BoardError(f"{path}: chip: must be an esptool chip name or null")
    fl = d.get("flash")
    if not isinstance(fl, dict):
        raise BoardError(f"{path}: flash: must be a mapping")
    sizes = fl.get("sizes")
    if not isinstance(sizes, list) or not sizes:
        raise BoardError(f"{path}: flash.sizes: must be a non-empty list")
    for s in sizes:
        flash_size_bytes(s)
    size = flash_size if flash_size is not None else fl.get("size")
    if size not in sizes:
        raise BoardError(f"board {name!r}: flash size {size!r} not one of {', '.join(sizes)}")
    if fl.get("mode") not in FLASH_MODES:
        raise BoardError(f"{path}: flash.mode: must be one of {', '.join(FLASH_MODES)}")
    if fl.get("freq") not in FLASH_FREQS:
        raise BoardError(f"{path}: flash.freq: must be one of {', '.join(FLASH_FREQS)}")
    boot = _int(path, "bootloader_offset", d.get("bootloader_offset"))
    _check_chip(path, chip, boot)
    pt = _int(path, "partition_table_offset", d.get("partition_table_offset"))
    parts = _partitions(path, d.get("partitions"), flash_size_bytes(size), pt)
    data_part = d.get("data_partition")
    if data_part not in {p.name for p in parts}:
        raise BoardError(f"{path}: data_partition: {data_part!r} is not a partition")
    cores = d.get("cores")
    if cores not in (1, 2):
        raise BoardError(f"{path}: cores: must be 1 or 2 (the chip's CPU cores), got {cores!r}")
    wasm_loop = d.get("wasm_loop", "flash")
    if wasm_loop not in WASM_LOOP_PLACES:
        raise BoardError(f"{path}: wasm_loop: must be one of {', '.join(WASM_LOOP_PLACES)}, got {wasm_loop!r}")
    return Board(
        **common,
        cores=cores,
        wasm_loop=wasm_loop,
        flash_size=size,
        flash_sizes=tuple(sizes),
        flash_mode=fl["mode"],
        flash_freq=fl["freq"],
        bootloader_offset=boot,
        partition_table_offset=pt,
        partitions=tuple(parts),
        data_partition=data_part,
    )


def _check_chip(path, chip: str, bootloader_offset: int) -> None:
    """The chip must be one esptool knows, and the bootloader goes where its ROM looks."""
    try:
        from esptool.targets import CHIP_DEFS
    except ImportError:  # esptool is only needed to flash; the header needs no check
        return
    if chip not in CHIP_DEFS:
        raise BoardError(f"{path}: chip: {chip!r} is not an esptool chip ({', '.join(sorted(CHIP_DEFS))})")
    rom_offset = CHIP_DEFS[chip].BOOTLOADER_FLASH_OFFSET
    if bootloader_offset != rom_offset:
        raise BoardError(f"{path}: bootloader_offset: the {chip} ROM loads the bootloader from {rom_offset:#x}")


def _budgets(path, raw, psram) -> dict:
    if not isinstance(raw, dict):
        raise BoardError(f"{path}: budgets: must be a mapping")
    missing = sorted(set(BUDGET_KEYS) - set(raw))
    extra = sorted(set(raw) - set(BUDGET_KEYS))
    if missing or extra:
        raise BoardError(f"{path}: budgets: missing {missing or '-'}, unknown {extra or '-'}")
    out = {}
    for key, unit in BUDGET_KEYS.items():
        entry = raw[key]
        if not isinstance(entry, dict):
            raise BoardError(f"{path}: budgets.{key}: must be a mapping")
        # heap_psram is 0 on a board without PSRAM; every other budget is at least 1.
        val = _int(path, f"budgets.{key}.{unit}", entry.get(unit), 0 if key == "heap_psram" else 1)
        region = entry.get("region")
        if region is not None:
            if region not in REGIONS:
                raise BoardError(f"{path}: budgets.{key}.region: must be one of {', '.join(REGIONS)}")
            if region == "psram" and not psram:
                raise BoardError(f"{path}: budgets.{key}.region: psram on a board without PSRAM")
        out[key] = {unit: val, "region": region}
    return out


def _partitions(path, raw, flash_bytes, table_offset) -> list[Partition]:
    if not isinstance(raw, list) or not raw:
        raise BoardError(f"{path}: partitions: must be a non-empty list")
    from k32.boards.partition_table import SUBTYPES, TYPES

    parts, end = [], table_offset + FLASH_SECTOR
    for i, e in enumerate(raw):
        f = f"partitions[{i}]"
        if not isinstance(e, dict):
            raise BoardError(f"{path}: {f}: must be a mapping")
        name, typ, sub = e.get("name"), e.get("type"), e.get("subtype")
        if not isinstance(name, str) or not 0 < len(name) <= 15:
            raise BoardError(f"{path}: {f}.name: 1..15 characters")
        if typ not in TYPES:
            raise BoardError(f"{path}: {f}.type: must be one of {', '.join(TYPES)}")
        if sub not in SUBTYPES[typ]:
            raise BoardError(f"{path}: {f}.subtype: {sub!r} is not a {typ} subtype")
        off = _int(path, f"{f}.offset", e.get("offset"))
        size = flash_bytes - off if e.get("size") == "rest" else _int(path, f"{f}.size", e.get("size"), 1)
        align = APP_ALIGN if typ == "app" else FLASH_SECTOR
        if off % align or size % FLASH_SECTOR:
            raise BoardError(f"{path}: {f}: offset must align to {align:#x}, size to {FLASH_SECTOR:#x}")
        if off < end:
            raise BoardError(f"{path}: {f}: offset {off:#x} overlaps what precedes it (ends {end:#x})")
        if size <= 0 or off + size > flash_bytes:
            raise BoardError(f"{path}: {f}: does not fit in {flash_bytes // 1048576} MB of flash")
        end = off + size
        parts.append(Partition(name, typ, sub, off, size))
    return parts
