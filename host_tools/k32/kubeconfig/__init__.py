"""Kubeconfig files: the one module every command uses to find, read, merge and write them.

files.py reads and writes files by kubectl's rules, connect.py turns a context into a
server URL, TLS context and Authorization header, board.py is `k32 kubeconfig` (a context
for a board's API server, its certificate pinned), cli.py is that command's options."""

from .board import DEFAULT_API_PORT, Target, check, fingerprint, from_console, from_network, write
from .connect import Connection, connect
from .files import (
    DEFAULT_CONTEXT,
    KubeconfigError,
    default_path,
    load,
    merge,
    read_merged,
    search_paths,
    write_context,
)

__all__ = [
    "DEFAULT_API_PORT",
    "DEFAULT_CONTEXT",
    "Connection",
    "KubeconfigError",
    "Target",
    "check",
    "connect",
    "default_path",
    "fingerprint",
    "from_console",
    "from_network",
    "load",
    "merge",
    "read_merged",
    "search_paths",
    "write",
    "write_context",
]
