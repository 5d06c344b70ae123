"""SessionMiddleware: Starlette's signed-cookie sessions (`request.session`, a dict kept in a cookie).

The cookie is Starlette's: the session as JSON, base64-encoded, signed with itsdangerous's TimestampSigner keyed
by `secret_key`; a session cookie written by a Starlette/FastAPI app with the same key is read here and the other
way round. The client can read the session's content (it is signed, not encrypted). A cookie whose signature is
wrong or older than `max_age` seconds starts an empty session. The cookie is written only when the handler
changed the session (and cleared, with an expired cookie, when it emptied a session that the request carried);
a handler that read the session adds `Vary: Cookie`.

Run in Python as an HTTP middleware (every request of the app then enters Python); a WebSocket route's
`websocket.session` is read from the handshake's cookie (read-only, as with Starlette: no Set-Cookie goes out on a
WebSocket). Requires itsdangerous (`pip install slipstream[web]`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from ..responses import Response
from . import BaseHTTPMiddleware

if TYPE_CHECKING:
    from typing_extensions import Self

_CLEARED_EXPIRES = "expires=Thu, 01 Jan 1970 00:00:00 GMT; "


class Session(dict[str, Any]):
    """The session dict; records whether the handler read it (`accessed`) and changed it (`modified`)."""

    accessed = False
    modified = False

    def mark_accessed(self) -> None:
        self.accessed = True

    def mark_modified(self) -> None:
        self.accessed = True
        self.modified = True

    def __setitem__(self, key: str, value: Any) -> None:
        self.mark_modified()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.mark_modified()
        super().__delitem__(key)

    def __ior__(self, other: Any) -> Self:  # type: ignore[override,misc]
        self.mark_modified()
        return super().__ior__(other)

    def clear(self) -> None:
        self.mark_modified()
        super().clear()

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            self.mark_modified()
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        item = super().popitem()
        self.mark_modified()
        return item

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self.mark_modified()
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.mark_modified()
        super().update(*args, **kwargs)


class SessionMiddleware(BaseHTTPMiddleware):
    """`app.add_middleware(SessionMiddleware, secret_key="...")`; the options are Starlette's: the cookie's name
    (`session_cookie`), lifetime in seconds (`max_age`, None for a browser-session cookie), `path`, `same_site`
    ("lax", "strict" or "none"), `https_only` (the Secure flag), `domain` and `partitioned`."""

    def __init__(self, app: Any = None, secret_key: Any = None, session_cookie: str = "session",
                 max_age: int | None = 14 * 24 * 60 * 60, path: str = "/",
                 same_site: Literal["lax", "strict", "none"] = "lax", https_only: bool = False,
                 domain: str | None = None, partitioned: bool = False) -> None:
        super().__init__(app)
        if secret_key is None:
            raise TypeError("SessionMiddleware needs a secret_key (the key that signs the session cookie)")
        try:
            import itsdangerous
        except ImportError as missing:
            raise ImportError("SessionMiddleware needs itsdangerous (pip install itsdangerous)") from missing
        self._bad_signature = itsdangerous.BadSignature
        self.signer = itsdangerous.TimestampSigner(str(secret_key))
        self.session_cookie = session_cookie
        self.max_age = max_age
        self.path = path
        flags = "httponly; samesite=" + same_site
        if https_only:
            flags += "; secure"
        if domain is not None:
            flags += f"; domain={domain}"
        if partitioned:
            flags += "; partitioned"
        self.security_flags = flags

    def load(self, cookie: str | None) -> Session | None:
        """The session a cookie value holds; None when there is none, or its signature is bad or expired."""
        if cookie is None:
            return None
        try:
            data = self.signer.unsign(cookie.encode("utf-8"), max_age=self.max_age)
        except self._bad_signature:
            return None
        return Session(json.loads(base64.b64decode(data)))

    def dump(self, session: dict[str, Any]) -> str:
        """The signed cookie value for `session`."""
        return self.signer.sign(base64.b64encode(json.dumps(session).encode("utf-8"))).decode("utf-8")

    def prepare_websocket(self, websocket: Any) -> None:
        """`websocket.session` from the handshake's cookie (Starlette's middleware reads it for WebSockets too; a
        WebSocket cannot set the cookie, so changes are not kept). A signed payload that is not JSON gives an empty
        session here (over HTTP it is a 500, as in Starlette)."""
        try:
            loaded = self.load(websocket.cookies.get(self.session_cookie))
        except ValueError:
            loaded = None
        websocket._session = loaded if loaded is not None else Session()

    async def dispatch(self, request: Any, call_next: Callable[[Any], Awaitable[Response]]) -> Response:
        loaded = self.load(request.cookies.get(self.session_cookie))
        session = loaded if loaded is not None else Session()
        request._session = session
        if request._scope is not None:
            request._scope["session"] = session
        response = await call_next(request)
        if session.accessed:
            response.headers.add_vary_header("Cookie")
        if session.modified and session:
            max_age = f"Max-Age={self.max_age}; " if self.max_age is not None else ""
            value = f"{self.session_cookie}={self.dump(session)}; path={self.path}; {max_age}{self.security_flags}"
            response.raw_headers.append(("set-cookie", value))
        elif session.modified and loaded is not None:
            value = f"{self.session_cookie}=null; path={self.path}; {_CLEARED_EXPIRES}{self.security_flags}"
            response.raw_headers.append(("set-cookie", value))
        return response


__all__ = ["Session", "SessionMiddleware"]
