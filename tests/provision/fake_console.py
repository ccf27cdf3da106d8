"""A scripted node console on TCP (docs/console.md) for protocol edge cases the real node
cannot be made to show on demand (silence, noise, malformed answers)."""

import json
import socket
import threading


class FakeConsole:
    def __init__(self, mode="ok"):
        self.mode = mode  # ok | silent | err | noisy
        self.received = []  # (name, arg) the node got
        self.state = {"token": "", "wifi": None}
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.sock.getsockname()[1]}"
        self._stop = False
        threading.Thread(target=self._loop, daemon=True).start()

    def close(self):
        self._stop = True
        self.sock.close()

    def _loop(self):
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        buf = b""
        with conn:
            while True:
                try:
                    chunk = conn.recv(4096)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    out = self._answer(line.decode("utf-8"))
                    if out:
                        conn.sendall(out.encode("utf-8"))

    def _answer(self, line):
        if self.mode == "silent" or not line.startswith("K32_CMD:"):
            return ""
        name, _, rest = line[len("K32_CMD:") :].partition(" ")
        arg = json.loads(rest) if rest else None
        self.received.append((name, arg))
        noise = "[NET] station connecting\r\nI (123) boot: something\r\n" if self.mode == "noisy" else ""
        if self.mode == "err":
            return noise + f"K32_RESP:{name} ERR could not persist\n"
        if name == "TOKEN":
            self.state["token"] = arg["token"]
            return noise + f'K32_RESP:TOKEN OK {{"auth":{json.dumps(bool(arg["token"]))}}}\n'
        if name == "WIFI":
            self.state["wifi"] = arg
            return (
                noise + f'K32_RESP:WIFI OK {json.dumps({"ssid": arg["ssid"]})}\n'
                '[NET] station connected to the uplink, IP 10.0.0.7\n'
            )
        if name == "STATUS":
            st = {"name": "fake", "token": bool(self.state["token"]), "wifi": self.state["wifi"] is not None}
            return noise + f"K32_RESP:STATUS OK {json.dumps(st)}\n"
        return f"K32_RESP:{name} ERR unknown command\n"
