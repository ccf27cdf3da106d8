"""A simulated Kube32 cluster: one control plane and N workers, each a k32-node process.

Python API (used by `k32 sim`, the tests' `sim_cluster` fixture, benches and hil/):

    c = SimCluster(state_dir, workers=2, base_port=6443, token=None, kubeconfig=None)
    c.up(); c.status(); c.kubectl("get", "nodes"); c.down()

Every process started is recorded in <state>/sim.json with its pid and start time, so that
`down` (from any later process) stops exactly those processes and nothing else.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from k32 import httpclient
from k32.kubeconfig import files as kcfg

from . import procs

DEFAULT_STATE_DIR = Path.home() / ".kube32" / "sim"
DEFAULT_WORKERS = 2
# Default ports; --base-port P moves the API port to P and every other port by the same offset.
API_PORT = 6443
INGRESS_PORT = 8080
POD_PORT = 7000  # worker i listens on POD_PORT + i
CONSOLE_PORT = 7100  # worker i listens on CONSOLE_PORT + i
DEFAULT_BASE_PORT = API_PORT
MAX_WORKERS = 50  # keeps pod ports below the console range
CONTROL_PLANE_NAME = "kube32-control-plane"
WORKER_NAME = "kube32-worker-{}"
BOARD = "sim"
READY_PREFIX = "K32_READY "
SIM_FILE = "sim.json"
SIM_FILE_VERSION = 1
NODE_READY_TIMEOUT = 30.0  # per process: from exec to its K32_READY line
API_READY_TIMEOUT = 60.0  # all Nodes Ready in the API (workers register and heartbeat)
LOG_TAIL_LINES = 15


# Each board's bundle digest, built once per process: a board's bundle (its LittleFS image
# included) takes seconds, and a test session starts dozens of clusters from the same sources.
_BUNDLE_DIGESTS: dict[str, str] = {}


class SimError(RuntimeError):
    """A one-line reason, optionally followed by the tail of a node's log."""


@dataclass
class NodeSpec:
    name: str
    role: str  # "control-plane" | "worker"
    ip: str
    api_port: int  # 0 on workers
    ingress_port: int  # 0 on workers
    pod_port: int
    console_port: int

    @property
    def console(self) -> str:
        return f"{self.ip}:{self.console_port}"

    def ports(self) -> list[int]:
        return [p for p in (self.api_port, self.ingress_port, self.pod_port, self.console_port) if p]


def node_ip(index: int) -> str:
    """Node i's loopback address: 127.0.0.(i+1) on Linux, where all of 127/8 is local;
    elsewhere (macOS) only 127.0.0.1 exists without aliases, and the ports stay distinct."""
    return f"127.0.0.{index + 1}" if sys.platform.startswith("linux") else "127.0.0.1"


def layout(workers: int = DEFAULT_WORKERS, base_port: int = DEFAULT_BASE_PORT) -> list[NodeSpec]:
    if not 0 <= workers <= MAX_WORKERS:
        raise SimError(f"--workers must be between 0 and {MAX_WORKERS}, got {workers}")
    shift = base_port - DEFAULT_BASE_PORT
    highest = max(API_PORT, INGRESS_PORT, CONSOLE_PORT + workers) + shift
    if API_PORT + shift < 1 or highest > 65535:
        raise SimError(
            f"--base-port {base_port} puts ports outside 1..65535 "
            f"(the layout spans {API_PORT}..{highest - shift} shifted by {shift})"
        )
    nodes = [
        NodeSpec(
            CONTROL_PLANE_NAME,
            "control-plane",
            node_ip(0),
            API_PORT + shift,
            INGRESS_PORT + shift,
            POD_PORT + shift,
            CONSOLE_PORT + shift,
        )
    ]
    for i in range(1, workers + 1):
        nodes.append(
            NodeSpec(WORKER_NAME.format(i), "worker", node_ip(i), 0, 0, POD_PORT + i + shift, CONSOLE_PORT + i + shift)
        )
    return nodes


def port_free(ip: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # Same option a server sets, so that TIME_WAIT leftovers do not count as busy.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((ip, port))
        except OSError:
            return False
    return True


def layout_free(nodes: list[NodeSpec]) -> bool:
    return all(port_free(n.ip, p) for n in nodes for p in n.ports())


def ephemeral_port_low() -> int:
    """The lowest port the kernel gives outgoing connections (Linux: ip_local_port_range;
    elsewhere the IANA dynamic range's start, which macOS uses)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 49152


def find_free_base_port(workers: int = DEFAULT_WORKERS, low: int = 20000, attempts: int = 200) -> int:
    """A base port whose whole layout is free now (tests use this to avoid real clusters).
    The layout stays below the ports outgoing connections are given: a port free when chosen
    is bound a build or a reboot later, and a client's connection (kubectl, a test's socket)
    must not have taken it meanwhile."""
    import random

    span = max(API_PORT, INGRESS_PORT, CONSOLE_PORT + workers) - API_PORT
    high = ephemeral_port_low() - span
    if high - low < 1000:  # an unusual range leaves little below it: search above it too
        high = 65535 - span
    rng = random.Random()
    for _ in range(attempts):
        base = rng.randrange(low, high)
        try:
            nodes = layout(workers, base)
        except SimError:
            continue
        if layout_free(nodes):
            return base
    raise SimError(f"no free port range found in {low}..{high} after {attempts} tries")


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    tail = text.strip().splitlines()[-lines:]
    return "\n".join("    " + line for line in tail) if tail else "    (log is empty)"


def _parent_death_hook():
    """A function to run in the child before exec that makes the kernel SIGTERM it when its
    parent dies (Linux prctl), or None elsewhere. Everything is looked up here, in the parent:
    the child of a threaded parent must not import or take locks before exec."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import signal

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    pr_set_pdeathsig, sigterm = 1, int(signal.SIGTERM)
    return lambda: prctl(pr_set_pdeathsig, sigterm, 0, 0, 0)


def _kubeconfig_token(path: Path, context: str) -> str | None:
    """The bearer token `up` wrote for `context` (sim.json never holds the secret itself)."""
    try:
        doc = kcfg.load(path)
    except (kcfg.KubeconfigError, OSError):
        return None
    for user in doc.get("users") or []:
        if isinstance(user, dict) and user.get("name") == context:
            return (user.get("user") or {}).get("token")
    return None


class SimCluster:
    def __init__(
        self,
        state_dir: Path | str = DEFAULT_STATE_DIR,
        workers: int = DEFAULT_WORKERS,
        base_port: int = DEFAULT_BASE_PORT,
        token: str | None = None,
        kubeconfig: Path | str | None = None,
        binary: Path | str | None = None,
        context: str = kcfg.DEFAULT_CONTEXT,
        die_with_parent: bool = False,
        egress_ca: Path | str | None = None,
        sd_dir: Path | str | None = None,
        board: str = BOARD,
        worker_board: str | None = None,
        m32: bool = False,
    ):
        self.state = Path(state_dir).expanduser().resolve()
        # Board mode: each node runs with its board profile's budgets (stacks, heap per
        # region, pod capacity), compiled into a k32-node built for that profile.
        self.board = board
        self.worker_board = worker_board or board
        # Every node built as a 32-bit program (the boards' pointer size: what their heap holds).
        self.m32 = m32
        from k32.boards import BoardError, load_board

        try:
            if "control-plane" not in load_board(board).roles:
                raise SimError(
                    f"--board {board} is a worker board: the control plane needs one that can "
                    f"run it (s3 or sim); use it as --worker-board"
                )
        except BoardError as e:
            raise SimError(str(e)) from None
        self._binaries: dict[str, Path] = {}
        # A card directory every node serves wasm://sd/ images from (<dir>/kube32/images/).
        self.sd_dir = Path(sd_dir).expanduser().resolve() if sd_dir else None
        # A PEM the control plane trusts for pods' https:// calls, beside the OS roots.
        self.egress_ca = Path(egress_ca).expanduser().resolve() if egress_ca else None
        self.workers = workers
        self.base_port = base_port
        self.token = token or None
        self.kubeconfig = Path(kubeconfig).expanduser() if kubeconfig else kcfg.default_path()
        self.binary = Path(binary) if binary else None
        self.context = context
        # Test clusters must not outlive a killed test run; a user's detached cluster must.
        self.die_with_parent = die_with_parent
        self.nodes = layout(workers, base_port)
        self._children: dict[str, subprocess.Popen] = {}
        # The control plane says in its K32_READY line whether the API is served over TLS
        # ("apiScheme": "https", with "caFile" or "caCert" PEM); kubectl only sends a bearer
        # token over TLS (kubernetes/kubectl#744), so token auth needs it.
        self.scheme = "http"
        self.ca_pem: str | None = None

    # ---- paths -------------------------------------------------------------------------
    @property
    def sim_file(self) -> Path:
        return self.state / SIM_FILE

    def node_state(self, name: str) -> Path:
        return self.state / "nodes" / name

    def log_path(self, name: str) -> Path:
        """The node's stderr (its logs)."""
        return self.state / "logs" / f"{name}.log"

    def out_path(self, name: str) -> Path:
        """The node's stdout (the K32_READY line)."""
        return self.state / "logs" / f"{name}.out"

    @property
    def api_url(self) -> str:
        cp = self.nodes[0]
        return f"{self.scheme}://{cp.ip}:{cp.api_port}"

    @property
    def node_api_url(self) -> str:
        """What workers dial: plain HTTP. The API port tells TLS from plain HTTP by its first
        bytes; the nodes' HTTP client (board and simulator alike) speaks plain HTTP only."""
        cp = self.nodes[0]
        return f"http://{cp.ip}:{cp.api_port}"

    # ---- the record of what is running -------------------------------------------------
    def _read_record(self) -> dict | None:
        if not self.sim_file.exists():
            return None
        try:
            rec = json.loads(self.sim_file.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise SimError(f"{self.sim_file}: unreadable ({e}); remove it if no node is running")
        if not isinstance(rec, dict) or not isinstance(rec.get("nodes"), list):
            raise SimError(f"{self.sim_file}: field 'nodes' missing or not a list")
        return rec

    def _write_record(self, rec: dict) -> None:
        tmp = self.sim_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, indent=2) + "\n")
        os.replace(tmp, self.sim_file)

    @staticmethod
    def _live(entry: dict) -> bool:
        try:
            return procs.alive(int(entry.get("pid", 0)), str(entry.get("startTime", "")))
        except (TypeError, ValueError):
            return False

    def running_nodes(self) -> list[dict]:
        rec = self._read_record()
        return [n for n in rec["nodes"] if isinstance(n, dict) and self._live(n)] if rec else []

    # ---- up ----------------------------------------------------------------------------
    def up(self, on_progress=None) -> dict:
        """Start every node, write the kubeconfig, wait until all Nodes are Ready.

        On any failure every process started here is stopped again and SimError raised."""
        say = on_progress or (lambda msg: None)
        live = self.running_nodes()
        if live:
            raise SimError(
                f"a cluster is already running from {self.state} "
                f"({', '.join(n.get('name', '?') for n in live)}); run `k32 sim down`"
            )
        found, console_token = self._console_token()
        if found:
            # The node prefers a token set on its console to its start-up flag (the newer
            # decision); the readiness probe and the kubeconfig must use the same one.
            self.token = console_token or None
        binary = self._binary(say)
        busy = [f"{n.name} {n.ip}:{p}" for n in self.nodes for p in n.ports() if not port_free(n.ip, p)]
        if busy:
            raise SimError(f"port busy: {', '.join(busy)} (choose another --base-port)")
        (self.state / "logs").mkdir(parents=True, exist_ok=True)
        rec = {
            "version": SIM_FILE_VERSION,
            "binary": str(binary),
            "kubeconfig": str(self.kubeconfig),
            "context": self.context,
            "apiServer": self.api_url,
            "token": bool(self.token),
            "workers": self.workers,
            "basePort": self.base_port,
            "nodes": [],
            "board": self.board,
            "workerBoard": self.worker_board,
            "sdDir": str(self.sd_dir) if self.sd_dir else None,
        }
        self._write_record(rec)
        try:
            cp = self.nodes[0]
            rec["nodes"].append(self._start(binary, cp))
            self._write_record(rec)
            rec["nodes"][0].update(self._wait_ready(cp))
            self._adopt_api_security(rec["nodes"][0])
            rec.update({"apiServer": self.api_url, "apiScheme": self.scheme, "caCert": self.ca_pem})
            self._write_record(rec)
            say(f"{cp.name} ready: api {self.api_url}")
            for spec in self.nodes[1:]:
                rec["nodes"].append(self._start(binary, spec))
            self._write_record(rec)
            for i, spec in enumerate(self.nodes[1:], start=1):
                rec["nodes"][i].update(self._wait_ready(spec))
                self._write_record(rec)
                say(f"{spec.name} ready")
            kcfg.write_context(self.api_url, self.token, self.kubeconfig, self.context, ca_pem=self.ca_pem)
            self.wait_nodes_ready(len(self.nodes))
        except BaseException:
            self.down()
            raise
        return self.status()

    def _console_token(self) -> tuple[bool, str | None]:
        """(set, token) as `k32 provision --token` left it in the control plane's settings
        (its state dir, owner-only): set is False when the console never set one."""
        path = self.node_state(self.nodes[0].name) / "settings.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False, None
        if not isinstance(doc, dict) or "token" not in doc:
            return False, None
        tok = doc["token"]
        return True, tok if isinstance(tok, str) and tok else None

    def _adopt_api_security(self, ready: dict) -> None:
        scheme = ready.pop("apiScheme", "http") or "http"
        if scheme not in ("http", "https"):
            raise SimError(f"{self.nodes[0].name}: K32_READY apiScheme {scheme!r} is not http/https")
        ca_file, ca_pem = ready.pop("caFile", None), ready.pop("caCert", None)
        if not self.token:
            # TLS only matters for the token (kubectl sends it over TLS only), and kubectl
            # prompts for a username when an https cluster's user has no credentials: a
            # cluster without a token is reached over plain HTTP (the API port serves both).
            scheme = "http"
        self.scheme = scheme
        if scheme == "https" and ca_file and not ca_pem:
            try:
                ca_pem = Path(ca_file).read_text()
            except OSError as e:
                raise SimError(f"{self.nodes[0].name}: K32_READY caFile {ca_file}: {e}")
        self.ca_pem = ca_pem if scheme == "https" else None

    def board_of(self, spec: NodeSpec) -> str:
        return self.board if spec.role == "control-plane" else self.worker_board

    def _binary(self, say) -> Path:
        """The control plane's k32-node; every board profile in use gets its own build."""
        if self.binary:
            if not os.access(self.binary, os.X_OK):
                raise SimError(f"node binary {self.binary} is not executable")
            self._binaries = {self.board: self.binary, self.worker_board: self.binary}
            return self.binary
        from k32.boards import BoardError, load_board
        from k32.build.firmware import FirmwareBuildError, build_dir_for, ensure_firmware, is_stale

        for board in dict.fromkeys((self.board, self.worker_board)):
            try:
                load_board(board)
            except BoardError as e:
                raise SimError(str(e))
            try:
                prebuilt = board == BOARD and not self.m32 and os.environ.get("K32_NODE_BINARY")
                if not prebuilt and is_stale(build_dir_for(board, self.m32)):
                    bits = "32-bit " if self.m32 else ""
                    say(f"building k32-node for board {board} ({bits}firmware host build) …")
                self._binaries[board] = ensure_firmware(board=board, m32=self.m32)
            except FirmwareBuildError as e:
                raise SimError(f"firmware build failed: {e}")
        return self._binaries[self.board]

    def _bundle_digest(self, board: str) -> str:
        """The digest of what `k32 bundle --board BOARD` builds for the node's board: the
        simulator's firmware image in the same sense a board's data partition is, printed at
        boot and in STATUS (in board mode, the digest a board of that kind would report)."""
        if board not in _BUNDLE_DIGESTS:
            from k32.data_bundle import digest_for

            _BUNDLE_DIGESTS[board] = digest_for(board)
        return _BUNDLE_DIGESTS[board]

    def _argv(self, binary: Path, spec: NodeSpec) -> list[str]:
        argv = [
            str(binary),
            "--role",
            spec.role,
            "--name",
            spec.name,
            "--bind",
            spec.ip,
            "--pod-port",
            str(spec.pod_port),
            "--console-port",
            str(spec.console_port),
            "--state",
            str(self.node_state(spec.name)),
            "--board",
            self.board_of(spec),
            "--bundle",
            self._bundle_digest(self.board_of(spec)),
        ]
        if spec.role == "control-plane":
            argv += ["--api-port", str(spec.api_port), "--ingress-port", str(spec.ingress_port)]
            if self.egress_ca:
                argv += ["--egress-ca", str(self.egress_ca)]
        else:
            argv += ["--control-plane", self.node_api_url]
        if self.sd_dir:
            argv += ["--sd", str(self.sd_dir)]
        if self.token:
            # A file only the user can read: argv is visible to every user (/proc/<pid>/cmdline).
            argv += ["--token-file", str(self.token_file(spec.name))]
        return argv

    def _rotate_log(self, name: str) -> None:
        """Keeps the previous run's log as <node>.log.1: the log that explains a crash must
        survive the restart that follows it. One generation is enough to read the last run."""
        log = self.log_path(name)
        try:
            if log.stat().st_size > 0:
                os.replace(log, log.with_name(log.name + ".1"))
        except FileNotFoundError:
            pass

    def token_file(self, name: str) -> Path:
        """The bearer token a node starts with (mode 0600; never on a command line)."""
        return self.node_state(name) / "api-token"

    def _write_token_file(self, name: str) -> None:
        path = self.token_file(name)
        path.unlink(missing_ok=True)  # a leftover of another mode must not keep its permissions
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.token + "\n")

    def _start(self, binary: Path, spec: NodeSpec) -> dict:
        self.node_state(spec.name).mkdir(parents=True, exist_ok=True)
        self._rotate_log(spec.name)
        if self.token:
            self._write_token_file(spec.name)
        hook = _parent_death_hook() if self.die_with_parent else None
        with open(self.out_path(spec.name), "wb") as out, open(self.log_path(spec.name), "wb") as err:
            try:
                # Own session: a Ctrl-C in the terminal reaches `k32 sim up`, which stops the
                # nodes in order, and a detached cluster outlives the shell that started it.
                binary = self._binaries.get(self.board_of(spec), binary)
                proc = subprocess.Popen(
                    self._argv(binary, spec),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    preexec_fn=hook,
                )
            except OSError as e:
                raise SimError(f"{spec.name}: cannot start {binary}: {e}")
        self._children[spec.name] = proc
        started = procs.start_time(proc.pid) or ""
        return {
            "name": spec.name,
            "role": spec.role,
            "ip": spec.ip,
            "apiPort": spec.api_port,
            "ingressPort": spec.ingress_port,
            "podPort": spec.pod_port,
            "console": spec.console,
            "bundle": "",
            "pid": proc.pid,
            "startTime": started,
            "log": str(self.log_path(spec.name)),
        }

    def _wait_ready(self, spec: NodeSpec, timeout: float = NODE_READY_TIMEOUT) -> dict:
        proc = self._children[spec.name]
        deadline = time.monotonic() + timeout
        while True:
            ready = self._ready_line(spec.name)
            if ready is not None:
                return ready
            code = proc.poll()
            if code is not None:
                raise SimError(
                    f"{spec.name} exited early (exit code {code}); "
                    f"log {self.log_path(spec.name)}:\n{_tail(self.log_path(spec.name))}"
                )
            if time.monotonic() > deadline:
                raise SimError(
                    f"{spec.name} not ready after {timeout:.0f}s (no K32_READY line); "
                    f"log {self.log_path(spec.name)}:\n{_tail(self.log_path(spec.name))}"
                )
            time.sleep(0.05)

    def _ready_line(self, name: str) -> dict | None:
        try:
            text = self.out_path(name).read_text(errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith(READY_PREFIX):
                try:
                    info = json.loads(line[len(READY_PREFIX) :])
                except json.JSONDecodeError as e:
                    raise SimError(f"{name}: malformed K32_READY line ({e}): {line[:200]}")
                if not isinstance(info, dict):
                    raise SimError(f"{name}: K32_READY payload is not a JSON object")
                return {
                    k: info[k]
                    for k in (
                        "ip",
                        "apiPort",
                        "ingressPort",
                        "podPort",
                        "console",
                        "bundle",
                        "apiScheme",
                        "caFile",
                        "caCert",
                    )
                    if k in info
                }
        return None

    # ---- the API -----------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | dict | None = None,
        headers: dict | None = None,
        timeout: float = 10.0,
        token: str | None | bool = True,
    ) -> tuple[int, dict, bytes]:
        """One HTTP request to the API server; returns (status, headers, body).

        token=True sends the cluster's token (if any), False/None sends none, a string sends it."""
        hdrs = dict(headers or {})
        bearer = self.token if token is True else (token or None)
        if bearer:
            hdrs.setdefault("Authorization", f"Bearer {bearer}")
        # A connection per request: tests call this from several threads at once.
        r = httpclient.request(self.api_url, method, path, body, hdrs, self.ssl_context(), timeout)
        return r.status, r.headers, r.body

    def ssl_context(self):
        """For https: trust exactly the CA the control plane named (None for http)."""
        if self.scheme != "https":
            return None
        import ssl

        if self.ca_pem:
            return ssl.create_default_context(cadata=self.ca_pem)
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # the node gave no CA: same as the kubeconfig's skip
        return ctx

    def nodes_ready(self) -> dict[str, bool]:
        status, _, body = self.request("GET", "/api/v1/nodes", timeout=5.0)
        if status != 200:
            return {}
        out = {}
        for item in json.loads(body).get("items", []):
            conds = (item.get("status") or {}).get("conditions") or []
            out[item["metadata"]["name"]] = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)
        return out

    def wait_nodes_ready(self, count: int, timeout: float = API_READY_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            try:
                ready = self.nodes_ready()
                last = ", ".join(f"{k}={'Ready' if v else 'NotReady'}" for k, v in ready.items()) or "no nodes"
                if sum(ready.values()) >= count:
                    return
            except (OSError, ValueError, KeyError, TypeError) as e:
                last = str(e)
            for spec in self.nodes:
                proc = self._children.get(spec.name)
                if proc is not None and proc.poll() is not None:
                    raise SimError(
                        f"{spec.name} exited (code {proc.returncode}) before all nodes "
                        f"were Ready; log {self.log_path(spec.name)}:\n"
                        f"{_tail(self.log_path(spec.name))}"
                    )
            time.sleep(0.2)
        raise SimError(
            f"{count} Ready nodes expected in GET /api/v1/nodes within {timeout:.0f}s; "
            f"last seen: {last}; control plane log:\n"
            f"{_tail(self.log_path(self.nodes[0].name))}"
        )

    # ---- down --------------------------------------------------------------------------
    def down(self) -> list[str]:
        """Stop every process recorded in sim.json (workers first); return the names stopped."""
        rec = self._read_record()
        if rec is None:
            return []
        stopped = []
        for entry in reversed(rec["nodes"]):
            if not isinstance(entry, dict):
                continue
            try:
                pid, started = int(entry.get("pid", 0)), str(entry.get("startTime", ""))
            except (TypeError, ValueError):
                continue
            if procs.stop(pid, started):
                stopped.append(entry.get("name", str(pid)))
            child = self._children.pop(entry.get("name", ""), None)
            if child is not None:
                try:
                    child.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        self.sim_file.unlink(missing_ok=True)
        return stopped

    # ---- status ------------------------------------------------------------------------
    def status(self) -> dict:
        rec = self._read_record()
        nodes = []
        for entry in (rec or {}).get("nodes", []):
            if not isinstance(entry, dict):
                continue
            nodes.append(
                {
                    "name": entry.get("name"),
                    "role": entry.get("role"),
                    "ip": entry.get("ip"),
                    "apiPort": entry.get("apiPort", 0),
                    "ingressPort": entry.get("ingressPort", 0),
                    "podPort": entry.get("podPort", 0),
                    "console": entry.get("console"),
                    "bundle": entry.get("bundle", ""),
                    "pid": entry.get("pid"),
                    "running": self._live(entry),
                    "log": entry.get("log"),
                }
            )
        return {
            "running": bool(nodes) and all(n["running"] for n in nodes),
            "state": str(self.state),
            "apiServer": (rec or {}).get("apiServer", self.api_url),
            "kubeconfig": (rec or {}).get("kubeconfig", str(self.kubeconfig)),
            "context": (rec or {}).get("context", self.context),
            "nodes": nodes,
        }

    @classmethod
    def from_state(cls, state_dir: Path | str = DEFAULT_STATE_DIR, **overrides) -> SimCluster:
        """The cluster recorded in <state>/sim.json (same layout, kubeconfig, context)."""
        probe = cls(state_dir, workers=0)
        rec = probe._read_record() or {}
        kwargs = {
            "workers": rec.get("workers", DEFAULT_WORKERS),
            "base_port": rec.get("basePort", DEFAULT_BASE_PORT),
            "kubeconfig": rec.get("kubeconfig"),
            "context": rec.get("context", kcfg.DEFAULT_CONTEXT),
            "sd_dir": rec.get("sdDir"),
        }
        if rec.get("token") and kwargs.get("kubeconfig") and "token" not in overrides:
            kwargs["token"] = _kubeconfig_token(Path(kwargs["kubeconfig"]), kwargs["context"])
        kwargs.update(overrides)
        cluster = cls(state_dir, **kwargs)
        if rec.get("apiScheme") == "https":
            cluster.scheme, cluster.ca_pem = "https", rec.get("caCert")
        return cluster

    # ---- clients -----------------------------------------------------------------------
    def kubectl(
        self,
        *args: str,
        version: str = "1.37",
        input: str | None = None,
        timeout: float = 60.0,
        check: bool = False,
        env: dict | None = None,
    ) -> subprocess.CompletedProcess:
        """Run kubectl `version` ("1.37", "1.32" or "1.20") against this cluster's context."""
        from k32.build.tools import kubectl

        argv = [str(kubectl(version)), "--kubeconfig", str(self.kubeconfig), "--context", self.context, *args]
        full_env = dict(os.environ)
        full_env.pop("KUBECONFIG", None)
        full_env.update(env or {})
        proc = subprocess.run(argv, input=input, capture_output=True, text=True, timeout=timeout, env=full_env)
        if check and proc.returncode != 0:
            raise SimError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def console(self, name: str, command: str, arg: dict | None = None) -> dict:
        """A console command (docs/console.md) to node `name`; returns the OK object."""
        from .console import command as console_command

        for spec in self.nodes:
            if spec.name == name:
                return console_command(spec.console, command, arg)
        raise SimError(f"no node named {name!r} in this cluster")
