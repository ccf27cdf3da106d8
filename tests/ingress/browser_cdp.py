"""Headless Debian Chromium driven over the DevTools protocol (websocket-client), for pages
that keep a connection open: an EventSource never lets `--dump-dom`/`--screenshot` with
`--virtual-time-budget` finish, so the test waits for a page condition instead."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket

# The flags the brief names: no GPU, no QUIC, nothing fetched behind the test's back.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--window-size=1024,768",
]
STARTUP_TIMEOUT_S = 30.0


class BrowserError(RuntimeError):
    pass


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process with a fresh profile in `profile_dir`; `page` is its first tab."""

    def __init__(self, binary: str, profile_dir: Path):
        self.profile_dir = Path(profile_dir)
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        self.log = open(self.profile_dir.parent / "chromium.log", "wb")
        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile_dir}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
        )
        self.ws = None
        self._id = 0
        try:
            self.ws = websocket.create_connection(self._page_ws_url(), timeout=10, suppress_origin=True)
        except Exception:
            self.close()
            raise

    def _page_ws_url(self) -> str:
        # Chromium writes the port it picked (we asked for 0) into DevToolsActivePort.
        port_file = self.profile_dir / "DevToolsActivePort"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrowserError(f"chromium exited with {self.proc.returncode}; see {self.log.name}")
            try:
                port = int(port_file.read_text().split()[0])
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                    pages = [t for t in json.load(r) if t.get("type") == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            except (OSError, ValueError, IndexError):
                pass
            time.sleep(0.2)
        raise BrowserError(f"chromium DevTools not reachable within {STARTUP_TIMEOUT_S:.0f} s")

    def call(self, method: str, **params) -> dict:
        """Sends one command and returns its result, skipping the events that arrive meanwhile."""
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error']}")
                return msg["result"]

    def navigate(self, url: str) -> None:
        result = self.call("Page.navigate", url=url)
        if result.get("errorText"):
            raise BrowserError(f"navigate {url}: {result['errorText']}")

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluate {expression!r}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float) -> bool:
        """True once `expression` is truthy. Until the document has loaded, the elements it
        names may not exist yet; such evaluation errors count as "not yet" until the end."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                if self.evaluate(expression):
                    return True
                last_error = None
            except BrowserError as e:
                last_error = e
            time.sleep(0.2)
        if last_error:
            raise last_error
        return False

    def screenshot(self, path: Path) -> bytes:
        png = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        Path(path).write_bytes(png)
        return png

    def dom(self) -> str:
        return self.evaluate("document.documentElement.outerHTML")

    def close(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
