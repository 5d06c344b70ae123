"""What `slipstream bench` sends: the request parsed from the command line once, and the TLS context."""

from __future__ import annotations

import ssl
import urllib.parse
from dataclasses import dataclass

MAX_HEAD_BYTES = 64 * 1024  # an answer's status line and headers


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    method: str
    path: str  # the request target: path and query
    authority: str  # Host / :authority
    headers: tuple[tuple[str, str], ...]  # the user's headers (lower-case names) and User-Agent, without Host
    body: bytes
    tls: ssl.SSLContext | None
    http2: bool

    @property
    def head_only(self) -> bool:
        """HEAD: answers carry no body."""
        return self.method == "HEAD"

    def http1_request(self) -> bytes:
        """The whole HTTP/1.1 request, sent as is on every try."""
        lines = [f"{self.method} {self.path} HTTP/1.1", f"Host: {self.authority}"]
        lines += [f"{name}: {value}" for name, value in self.headers]
        if self.body or self.method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(self.body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body


def tls_context(insecure: bool, cafile: str | None, http2: bool) -> ssl.SSLContext:
    """Verifies the server's certificate (the system's CAs, or `cafile`) unless `insecure`; offers h2 by ALPN
    when `http2`, else http/1.1."""
    context = ssl.create_default_context(cafile=cafile)
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"] if http2 else ["http/1.1"])
    return context


def parse_target(
    url: str,
    method: str,
    headers: list[str],
    body: bytes,
    *,
    http2: bool = False,
    insecure: bool = False,
    cafile: str | None = None,
) -> Target:
    """The request to send, from the command line; ValueError says what is wrong."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{url!r}: only http:// and https:// URLs are supported")
    if not parts.hostname:
        raise ValueError(f"{url!r}: no host")
    if (insecure or cafile) and parts.scheme != "https":
        raise ValueError("--insecure and --cacert apply to https:// URLs only")
    default_port = 443 if parts.scheme == "https" else 80
    port = parts.port or default_port
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    authority = host if port == default_port else f"{host}:{port}"
    fields: list[tuple[str, str]] = []
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep or not name.strip() or any(c in header for c in "\r\n"):
            raise ValueError(f"{header!r}: a header is NAME:VALUE on one line")
        fields.append((name.strip().lower(), value.strip()))
    if any(name == "host" for name, _ in fields):
        raise ValueError("Host comes from the URL, not from -H")
    if not any(name == "user-agent" for name, _ in fields):
        fields.append(("user-agent", "slipstream-bench"))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    tls = tls_context(insecure, cafile, http2) if parts.scheme == "https" else None
    return Target(parts.hostname, port, method, path, authority, tuple(fields), body, tls, http2)
