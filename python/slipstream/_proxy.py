"""Requests behind a proxy: root_path, TLS scheme, and X-Forwarded-For/-Proto from trusted peers (uvicorn's rules)."""

from __future__ import annotations

import ipaddress
import types
from collections.abc import Sequence
from typing import Any

from .datastructures import Address
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


class RequestFactory:
    """make_request for the extension: ProxiedRequests with the scheme, root_path and forwarded client."""

    def __init__(self, root_path: str, scheme: str, trusted: TrustedHosts | None,
                 testclient_scheme: bool = False) -> None:
        self.root_path = root_path
        self.scheme = scheme
        self.trusted = trusted
        self.testclient_scheme = testclient_scheme

    def __call__(self, method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                 path_params: dict[str, str], client: str, route: str, principal: str | None = None) -> Request:
        scheme = self.scheme
        forwarded_client: Address | None | bool = False
        if self.testclient_scheme and any(k.lower() == TESTCLIENT_SCHEME_HEADER for k, _ in headers):
            scheme = next(v for k, v in headers if k.lower() == TESTCLIENT_SCHEME_HEADER)
            headers = [(k, v) for k, v in headers if k.lower() != TESTCLIENT_SCHEME_HEADER]
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
        if scheme == "http" and not self.root_path and forwarded_client is False:
            # Nothing to carry (a TestClient's plain http:// request): the Request an app without options gets.
            return Request(method, path, query, headers, body, path_params, client, route, principal)
        return ProxiedRequest(method, path, query, headers, body, path_params, client, route, principal, scheme=scheme,
                              root_path=self.root_path, client=forwarded_client)


def request_runtime(runtime: Any, root_path: str, options: dict[str, Any]) -> Any:
    """`runtime` itself, or a copy whose make_request is a RequestFactory when requests need a root_path, https or proxy headers. Takes
    "proxy_headers" and "forwarded_allow_ips" out of `options` (they are not engine options)."""
    proxy_headers = bool(options.pop("proxy_headers", False))
    allowed = options.pop("forwarded_allow_ips", None)
    testclient_scheme = bool(options.pop("testclient_scheme", False))  # the TestClient's https:// requests
    scheme = "https" if options.get("tls_cert_file") else "http"
    if not (root_path or proxy_headers or scheme == "https" or testclient_scheme):
        return runtime
    trusted = TrustedHosts(allowed if allowed is not None else "127.0.0.1") if proxy_headers else None
    # A copy of the runtime module (the extension takes a module and looks its helpers up once).
    copy = types.ModuleType(runtime.__name__, runtime.__doc__)
    copy.__dict__.update({k: v for k, v in vars(runtime).items() if not k.startswith("__")})
    copy.make_request = RequestFactory(root_path.rstrip("/"), scheme, trusted,  # type: ignore[attr-defined]
                                       testclient_scheme)
    return copy
