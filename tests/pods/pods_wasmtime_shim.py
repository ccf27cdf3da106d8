"""A small host for the k32 pod ABI on wasmtime (Python): an independent second runtime for
the shipped images, built from wasm_abi/k32_abi.yaml (imports and error codes), not from
the firmware."""

from __future__ import annotations

from dataclasses import dataclass, field

import wasmtime

from k32.abi.model import load

ABI = load()
ERR = {e.name: e.value for e in ABI.errors}
_WT = {
    "i32": wasmtime.ValType.i32(),
    "u32": wasmtime.ValType.i32(),
    "ptr": wasmtime.ValType.i32(),
    "cptr": wasmtime.ValType.i32(),
    "i64": wasmtime.ValType.i64(),
}


@dataclass
class Ctx:
    env: dict[str, str] = field(default_factory=dict)
    caps: set[str] = field(default_factory=set)
    method: str = "GET"
    path: str = "/"
    query: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    status: int = 200
    resp_headers: list[tuple[str, str]] = field(default_factory=list)
    resp_body: bytearray = field(default_factory=bytearray)
    log: list[str] = field(default_factory=list)
    stdout: bytearray = field(default_factory=bytearray)
    published: list[tuple[str, bytes]] = field(default_factory=list)


class PodHost:
    def __init__(self, wasm_bytes: bytes, ctx: Ctx, max_pages: int = 1):
        self.ctx = ctx
        self.engine = wasmtime.Engine()
        self.store = wasmtime.Store(self.engine)
        self.store.set_limits(memory_size=max_pages * 65536)
        self.module = wasmtime.Module(self.engine, wasm_bytes)
        self.linker = wasmtime.Linker(self.engine)
        self.mem = None
        for f in ABI.imports:
            ftype = wasmtime.FuncType([_WT[p.type] for p in f.params], [_WT[f.ret]])
            impl = getattr(self, "_" + f.name, None)
            if f.capability and f.capability not in ctx.caps:
                impl = lambda *a: ERR["PERM"]  # noqa: E731
            elif impl is None:
                impl = lambda *a: ERR["NOTSUP"]  # noqa: E731
            self.linker.define_func("k32", f.name, ftype, impl)
        fd_write = wasmtime.FuncType([wasmtime.ValType.i32()] * 4, [wasmtime.ValType.i32()])
        self.linker.define_func("wasi_snapshot_preview1", "fd_write", fd_write, self._fd_write)
        self.instance = self.linker.instantiate(self.store, self.module)
        self.mem = self.instance.exports(self.store)["memory"]

    # ---- memory helpers ----
    def _read(self, ptr: int, n: int) -> bytes:
        return bytes(self.mem.read(self.store, ptr, ptr + n))

    def _out(self, ptr: int, cap: int, data: bytes) -> int:
        n = min(cap, len(data))
        if n:
            self.mem.write(self.store, data[:n], ptr)
        return len(data)

    def export(self, name: str):
        return self.instance.exports(self.store).get(name)

    def call(self, name: str):
        return self.export(name)(self.store)

    # ---- the ABI ----
    def _k32_req_method(self, out, cap):
        return self._out(out, cap, self.ctx.method.encode())

    def _k32_req_path(self, out, cap):
        return self._out(out, cap, self.ctx.path.encode())

    def _k32_req_query(self, out, cap):
        return self._out(out, cap, self.ctx.query.encode())

    def _k32_req_body(self, out, cap):
        return self._out(out, cap, self.ctx.body)

    def _k32_req_header(self, name, name_len, out, cap):
        key = self._read(name, name_len).decode().lower()
        for k, v in self.ctx.headers.items():
            if k.lower() == key:
                return self._out(out, cap, v.encode())
        return ERR["NOENT"]

    def _k32_resp_status(self, status):
        if not 100 <= status <= 599 or self.ctx.resp_body:
            return ERR["INVAL"]
        self.ctx.status = status
        return 0

    def _k32_resp_header(self, n, nl, v, vl):
        self.ctx.resp_headers.append((self._read(n, nl).decode(), self._read(v, vl).decode()))
        return 0

    def _k32_resp_write(self, data, n):
        self.ctx.resp_body += self._read(data, n)
        return n

    def _k32_env_get(self, key, key_len, out, cap):
        k = self._read(key, key_len).decode()
        if k not in self.ctx.env:
            return ERR["NOENT"]
        return self._out(out, cap, self.ctx.env[k].encode())

    def _k32_log(self, msg, n):
        self.ctx.log.append(self._read(msg, n).decode())
        return 0

    def _k32_channel_publish(self, t, tl, d, dl):
        self.ctx.published.append((self._read(t, tl).decode(), self._read(d, dl)))
        return 0

    def _fd_write(self, fd, iovs, iovcnt, written):
        total = 0
        for i in range(iovcnt):
            raw = self._read(iovs + 8 * i, 8)
            ptr, n = int.from_bytes(raw[:4], "little"), int.from_bytes(raw[4:], "little")
            self.ctx.stdout += self._read(ptr, n)
            total += n
        self.mem.write(self.store, total.to_bytes(4, "little"), written)
        return 0
