"""RFC 6455 framing as a client writes and reads it (masked frames out, unmasked frames in, no extensions): shared
by the TestClient's WebSocket session (blocking) and an App called as an ASGI app (_asgi/entry_ws.py, asyncio)."""

from __future__ import annotations

import base64
import hashlib
import os
import struct
from typing import Any

CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def mask(data: bytes, key: bytes) -> bytes:
    """`data` XOR the 4-byte `key` repeated (masking and unmasking are the same operation)."""
    if not data:
        return data
    n = len(data)
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One final frame with `payload`, masked with a fresh key as a client must send it."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    key = os.urandom(4)
    return head + key + mask(payload, key)


def accept_value(key: str) -> str:
    """The Sec-WebSocket-Accept a server must answer to the Sec-WebSocket-Key `key`."""
    return base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()


def new_key() -> str:
    return base64.b64encode(os.urandom(16)).decode()


def close_payload(code: int, reason: str | None = None) -> bytes:
    return struct.pack("!H", code) + (reason or "").encode("utf-8")[:123]


def parse_close(payload: bytes) -> tuple[int, str]:
    """A close frame's code (1005 when it has none) and reason."""
    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
    return code, payload[2:].decode("utf-8", "replace")


async def read_frame(reader: Any) -> tuple[bool, int, bytes]:
    """(fin, opcode, payload) of the next frame from an asyncio StreamReader (unmasked when the peer masked it)."""
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", await reader.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", await reader.readexactly(8))[0]
    key = await reader.readexactly(4) if b1 & 0x80 else b""
    payload = await reader.readexactly(n)
    return bool(b0 & 0x80), b0 & 0x0F, mask(payload, key) if key else payload
