"""What `k32 provision` sends over a node's console: Wi-Fi credentials and the API bearer
token. Secrets travel as JSON, are checked before sending, and are never echoed, logged or put
into an error message."""

from __future__ import annotations

import re

from .console import Console, ProvisionError

# RFC 6750 b64token: what can stand after "Bearer " in an Authorization header.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
TOKEN_MAX = 512
SSID_MAX_BYTES = 32
WPA_MIN, WPA_MAX = 8, 63
WPA_HEX_LEN = 64


def check_token(token: str) -> None:
    if token == "":
        return
    if len(token) > TOKEN_MAX or not TOKEN_RE.fullmatch(token):
        raise ProvisionError(
            "token: must be 1-512 characters of A-Z a-z 0-9 - . _ ~ + / "
            "(then optional '='): it travels in an HTTP Authorization header"
        )


def check_wifi(ssid: str, password: str) -> None:
    raw = ssid.encode("utf-8")
    if not 1 <= len(raw) <= SSID_MAX_BYTES:
        raise ProvisionError(f"ssid: must be 1-{SSID_MAX_BYTES} bytes in UTF-8, got {len(raw)}")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in ssid):
        raise ProvisionError("ssid: must not contain control characters")
    if password == "":
        return
    if len(password) == WPA_HEX_LEN and re.fullmatch(r"[0-9A-Fa-f]+", password):
        return
    if not all(0x20 <= ord(c) <= 0x7E for c in password):
        raise ProvisionError("password: a WPA2 passphrase is printable ASCII (spaces and quotes are fine)")
    if not WPA_MIN <= len(password) <= WPA_MAX:
        raise ProvisionError(f"password: a WPA2 passphrase has {WPA_MIN}-{WPA_MAX} characters, got {len(password)}")


def set_token(console: Console, token: str, timeout: float = 10.0) -> dict:
    check_token(token)
    console.command("TOKEN", {"token": token}, timeout)
    status = console.command("STATUS", None, timeout)
    if bool(status.get("token")) != bool(token):
        raise ProvisionError("the node accepted TOKEN but its STATUS does not show it")
    return status


def set_wifi(console: Console, ssid: str, password: str, timeout: float = 10.0) -> dict:
    check_wifi(ssid, password)
    answer = console.command("WIFI", {"ssid": ssid, "password": password}, timeout)
    status = console.command("STATUS", None, timeout)
    if not status.get("wifi"):
        raise ProvisionError("the node accepted WIFI but its STATUS does not show it")
    return answer
