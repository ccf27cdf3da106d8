"""`k32 provision`: Wi-Fi credentials and the API bearer token, sent over a node's console.

console.py speaks the console protocol; credentials.py checks and sends the secrets."""

from .console import CMD_PREFIX, CONSOLE_BAUD, RESP_PREFIX, Console, ProvisionError, open_port
from .credentials import TOKEN_MAX, check_token, check_wifi, set_token, set_wifi

__all__ = [
    "CMD_PREFIX",
    "CONSOLE_BAUD",
    "RESP_PREFIX",
    "TOKEN_MAX",
    "Console",
    "ProvisionError",
    "check_token",
    "check_wifi",
    "open_port",
    "set_token",
    "set_wifi",
]
