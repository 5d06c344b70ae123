"""Cookies: the TestClient's cookie jar with httpx's API (`set`, `get`, `delete`, `clear`, `jar`), over the
standard library's CookieJar, which applies the Set-Cookie rules (domain, path, expiry, Max-Age=0 deletes)."""

from __future__ import annotations

import email.message
import urllib.request
from collections.abc import Iterator, Mapping, MutableMapping
from http.cookiejar import Cookie, CookieJar
from typing import Any


class CookieConflict(LookupError):
    """Cookies.get(name) found several cookies of that name (different domains or paths): give domain/path."""


class _ResponseInfo:
    """The part of a urllib response CookieJar.extract_cookies reads: its headers."""

    def __init__(self, headers: list[tuple[str, str]]) -> None:
        self._message = email.message.Message()
        for key, value in headers:
            self._message[key] = value

    def info(self) -> email.message.Message:
        return self._message


class Cookies(MutableMapping[str, str]):
    """A cookie jar: filled by the Set-Cookie headers of responses, sent as the Cookie header of later requests
    whose URL the cookies match (httpx's Cookies)."""

    def __init__(self, cookies: Mapping[str, str] | list[tuple[str, str]] | Cookies | CookieJar | None = None) -> None:
        if isinstance(cookies, CookieJar):
            self.jar = cookies
            return
        self.jar = CookieJar()
        if isinstance(cookies, Cookies):
            for cookie in cookies.jar:
                self.jar.set_cookie(cookie)
        elif cookies is not None:
            for name, value in cookies.items() if isinstance(cookies, Mapping) else cookies:
                self.set(name, value)

    def set(self, name: str, value: str, domain: str = "", path: str = "/") -> None:
        """Adds (or replaces) a cookie; domain "" matches every host."""
        self.jar.set_cookie(Cookie(
            version=0, name=name, value=value, port=None, port_specified=False, domain=domain,
            domain_specified=bool(domain), domain_initial_dot=domain.startswith("."), path=path,
            path_specified=bool(path), secure=False, expires=None, discard=True, comment=None, comment_url=None,
            rest={"HttpOnly": None}, rfc2109=False))

    def get(self, name: str, default: str | None = None, domain: str | None = None,  # type: ignore[override]
            path: str | None = None) -> str | None:
        """The value of the cookie `name` (of `domain` and `path` when given); CookieConflict when several match."""
        found: Cookie | None = None
        for cookie in self.jar:
            if cookie.name == name and domain in (None, cookie.domain) and path in (None, cookie.path):
                if found is not None and found.value != cookie.value:
                    raise CookieConflict(f"Multiple cookies exist with name={name}")
                found = cookie
        return default if found is None or found.value is None else found.value

    def delete(self, name: str, domain: str | None = None, path: str | None = None) -> None:
        """Removes the cookies called `name` (only those of `domain` and `path` when given)."""
        doomed = [c for c in self.jar if c.name == name and domain in (None, c.domain) and path in (None, c.path)]
        for cookie in doomed:
            self.jar.clear(cookie.domain, cookie.path, cookie.name)

    def clear(self, domain: str | None = None, path: str | None = None) -> None:
        """Removes every cookie, or those of `domain` (and `path`)."""
        if domain is None and path is not None:
            raise ValueError("Cookies.clear: a path needs its domain")
        if domain is None:
            self.jar.clear()
        elif path is None:
            self.jar.clear(domain)
        else:
            self.jar.clear(domain, path)

    def update(self, cookies: Any = None, /, **_: Any) -> None:  # type: ignore[override]
        for cookie in Cookies(cookies).jar:
            self.jar.set_cookie(cookie)

    def extract_cookies(self, url: str, headers: list[tuple[str, str]]) -> None:
        """Stores the cookies that the Set-Cookie headers of a response to `url` set (and drops expired ones)."""
        self.jar.extract_cookies(_ResponseInfo(headers), urllib.request.Request(url))  # type: ignore[arg-type]

    def header_for(self, url: str) -> str | None:
        """The Cookie header a request to `url` sends (None when no cookie matches it)."""
        request = urllib.request.Request(url)
        self.jar.add_cookie_header(request)
        return request.get_header("Cookie")

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __setitem__(self, name: str, value: str) -> None:
        self.set(name, value)

    def __delitem__(self, name: str) -> None:
        if self.get(name) is None:
            raise KeyError(name)
        self.delete(name)

    def __len__(self) -> int:
        return len(self.jar)

    def __iter__(self) -> Iterator[str]:
        return (cookie.name for cookie in self.jar)

    def __bool__(self) -> bool:
        return any(True for _ in self.jar)

    def __repr__(self) -> str:
        inner = ", ".join(f"<Cookie {c.name}={c.value} for {c.domain} />" for c in self.jar)
        return f"<Cookies[{inner}]>"
