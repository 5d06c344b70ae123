"""Requests behind a proxy: root_path, TLS scheme, and X-Forwarded-For/-Proto from trusted peers (uvicorn's rules)."""

from __future__ import annotations

import ipaddress
import secrets
import types
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from .datastructures import Address, Headers
from .requests import Request

_SCHEMES = {"http", "https", "ws", "wss"}


class TrustedHosts:
    """The peers whose X-Forwarded-* headers are believed: "*", addresses, networks (CIDR) or other literals."""

    def __init__(self, spec: str | Sequence[str]) -> None:
        items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
        self.always = "*" in items
        self.addresses: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.literals: set[str] = set()
        for item in items:
            if not item or item == "*":
                continue
            try:
                if "/" in item:
                    self.networks.append(ipaddress.ip_network(item, strict=False))
                else:
                    self.addresses.add(ipaddress.ip_address(item))
            except ValueError:
                self.literals.add(item)

    def __contains__(self, host: str) -> bool:
        if self.always:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return host in self.literals
        return address in self.addresses or any(address in net for net in self.networks)

    def client_host(self, forwarded_for: str) -> str:
        """The first address from the right that is not a trusted proxy (the left-most when all are)."""
        hosts = [h.strip() for h in forwarded_for.split(",")]
        if self.always:
            return hosts[0]
        for host in reversed(hosts):
            if host not in self:
                return host
        return hosts[0]


class ProxiedRequest(Request):
    """A Request whose url carries the scheme and root_path, and whose client may come from X-Forwarded-For."""

    __slots__ = ("_client", "root_path", "scheme")

    def __init__(self, *args: Any, scheme: str, root_path: str, client: Address | None | bool) -> None:
        super().__init__(*args)
        self.scheme = scheme
        self.root_path = root_path
        self._client = client

    @property
    def client(self) -> Address | None:
        if self._client is False:
            return Request.client.fget(self)  # type: ignore[attr-defined, no-any-return]
        return self._client  # type: ignore[return-value]


# The header by which a TestClient's request says it was sent to an https:// URL (its server speaks plain HTTP to
# 127.0.0.1). Read, and removed, only by the server a TestClient builds (`testclient_scheme`), never by App.run's.
TESTCLIENT_SCHEME_HEADER = "x-slipstream-testclient-scheme"
# The header by which an App called as an ASGI app (_asgi/entry.py) hands its engine the scope's scheme, client and
# root_path: "<token> <scheme> <host> <port> <root_path percent-encoded>" ("-" for no client, no root_path). Read, and
# removed, only by the engine that entry built, with that engine's random token (another local process cannot
# forge a client address).
ASGI_SCOPE_HEADER = "x-slipstream-asgi-scope"
_WS_SCHEMES = {"http": "ws", "https": "wss"}


class RequestFactory:
    """make_request for the extension: ProxiedRequests with the scheme, root_path and forwarded client."""

    def __init__(self, root_path: str, scheme: str, trusted: TrustedHosts | None,
                 testclient_scheme: bool = False, asgi_token: str | None = None) -> None:
        self.root_path = root_path
        self.scheme = scheme
        self.trusted = trusted
        self.testclient_scheme = testclient_scheme
        self.asgi_token = asgi_token

    def connection(self, headers: list[tuple[str, str]],
                   client: str) -> tuple[str, list[tuple[str, str]], Address | None | bool, str]:
        """The scheme ("http"/"https", or "ws"/"wss" as a proxy or a scope gave it), the headers (markers
        removed), the client (False: the peer itself) and the root_path of a request or WebSocket handshake from
        `client`."""
        scheme = self.scheme
        root_path = self.root_path
        forwarded_client: Address | None | bool = False
        if self.testclient_scheme and any(k.lower() == TESTCLIENT_SCHEME_HEADER for k, _ in headers):
            scheme = next(v for k, v in headers if k.lower() == TESTCLIENT_SCHEME_HEADER)
            headers = [(k, v) for k, v in headers if k.lower() != TESTCLIENT_SCHEME_HEADER]
        if self.asgi_token is not None:
            # The entry's own marker is the last; one the client sent stays an ordinary header.
            marker = next((v for k, v in reversed(headers) if k.lower() == ASGI_SCOPE_HEADER), None)
            fields = marker.split(" ") if marker is not None else []
            if len(fields) == 5 and secrets.compare_digest(fields[0], self.asgi_token) and fields[3].isdigit():
                at = max(i for i, (k, _) in enumerate(headers) if k.lower() == ASGI_SCOPE_HEADER)
                headers = headers[:at] + headers[at + 1:]
                scheme = fields[1] if fields[1] in _SCHEMES else "http"
                forwarded_client = None if fields[2] == "-" else Address(fields[2], int(fields[3]))
                root_path = unquote(fields[4]).rstrip("/") if fields[4] != "-" else root_path
        if self.trusted is not None:
            peer = client.rpartition(":")[0].strip("[]") if ":" in client else client
            if peer in self.trusted:
                last = {k.lower(): v for k, v in headers}  # the last of repeated headers wins, as in uvicorn
                proto = last.get("x-forwarded-proto", "").strip()
                if proto in _SCHEMES:
                    scheme = proto
                if "x-forwarded-for" in last:
                    host = self.trusted.client_host(last["x-forwarded-for"])
                    if host:
                        forwarded_client = Address(host, 0)
        return scheme, headers, forwarded_client, root_path

    def __call__(self, method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                 path_params: dict[str, str], client: str, route: str, principal: str | None = None,
                 scopes: str | None = None) -> Request:
        scheme, headers, forwarded_client, root_path = self.connection(headers, client)
        if scheme == "http" and not root_path and forwarded_client is False:
            # Nothing to carry (a TestClient's plain http:// request): the Request an app without options gets.
            return Request(method, path, query, headers, body, path_params, client, route, principal, scopes)
        return ProxiedRequest(method, path, query, headers, body, path_params, client, route, principal, scopes,
                              scheme=scheme,
                              root_path=root_path, client=forwarded_client)

    def prepare_websocket(self, ws: Any) -> None:
        """A WebSocket's scheme ("wss" where a request would be "https"), headers, client and root_path, as for a
        request."""
        scheme, headers, forwarded_client, root_path = self.connection(ws._header_rows, ws.client_address)
        ws.scheme = _WS_SCHEMES.get(scheme, scheme)
        ws.root_path = root_path
        if len(headers) != len(ws._header_rows):
            ws._header_rows = headers
            ws.headers = Headers(headers)
        if forwarded_client is not False:
            ws._forwarded_client = forwarded_client


def request_runtime(runtime: Any, root_path: str, options: dict[str, Any]) -> Any:
    """`runtime` itself, or a copy whose make_request is a RequestFactory when requests need a root_path, https or proxy headers. Takes
    "proxy_headers" and "forwarded_allow_ips" out of `options` (they are not engine options)."""
    proxy_headers = bool(options.pop("proxy_headers", False))
    allowed = options.pop("forwarded_allow_ips", None)
    testclient_scheme = bool(options.pop("testclient_scheme", False))  # the TestClient's https:// requests
    asgi_token = options.pop("asgi_scope_token", None)  # an App called as an ASGI app (_asgi/entry.py)
    scheme = "https" if options.get("tls_cert_file") else "http"
    if not (root_path or proxy_headers or scheme == "https" or testclient_scheme or asgi_token):
        return runtime
    trusted = TrustedHosts(allowed if allowed is not None else "127.0.0.1") if proxy_headers else None
    # A copy of the runtime module (the extension takes a module and looks its helpers up once).
    copy = types.ModuleType(runtime.__name__, runtime.__doc__)
    copy.__dict__.update({k: v for k, v in vars(runtime).items() if not k.startswith("__")})
    copy.make_request = RequestFactory(root_path.rstrip("/"), scheme, trusted,  # type: ignore[attr-defined]
                                       testclient_scheme, asgi_token)
    return copy
