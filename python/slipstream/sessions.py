"""slipstream.sessions: durable agent sessions (src/agent/sessions) on a Python app: the HTTP routes, answered in C++
without the GIL, and an `AgentSession` dependency for handlers, on the same store.

    from slipstream import App, Depends
    from slipstream.sessions import AgentSession, agent_session

    app = App(sessions="sqlite:///var/lib/app/sessions.db")   # or: app.sessions("postgresql://...", buffered=True)

    @app.post("/chat/{session_id}")
    async def chat(message: str, session: AgentSession = Depends(agent_session)):
        await session.append("user", {"text": message})
        state = await session.state()
        await session.update_state({**state.document, "turns": state.document.get("turns", 0) + 1},
                                   version=state.version)   # 409 when another write came first

The routes (POST/GET/DELETE /sessions, /sessions/{id}, /sessions/{id}/events (?follow=1: SSE), /sessions/{id}/state)
are listed in the app's /openapi.json. Operations are awaited without holding the executor (the answer comes back
through an eventfd, like slipstream.database); `session.sync` has the same methods, blocking, for `def` handlers.
A refused operation raises SessionError, an HTTPException with the status the routes would answer (403, 404, 409
with `current_version`, 413, 422, 503), so an unhandled one becomes that answer.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from . import _native
from ._database.dispatch import Completions
from .exceptions import HTTPException
from .requests import Request

_OPTIONS = (
    "buffered",
    "flush_ms",
    "max_queued_events",
    "max_events",
    "max_event_bytes",
    "max_state_bytes",
    "max_per_principal",
    "ttl_ms",
    "sweep_interval_ms",
    "max_page",
    "append_in_flight",
    "append_batch",
    "metrics",
)

ANONYMOUS = "anonymous"


class SessionError(HTTPException):
    """A refused session operation: `status_code` and `detail` as the routes answer them; `problem` the whole
    application/problem+json document; `current_version` the stored state version of a 409 (else None)."""

    def __init__(self, status_code: int, problem: Mapping[str, Any]) -> None:
        super().__init__(status_code, problem.get("detail") or problem.get("title"))
        self.problem = dict(problem)
        self.current_version: int | None = problem.get("current_version")


class SessionState(NamedTuple):
    """A state document and its version (the If-Match / expected version of the next write)."""

    document: Any
    version: int


def _answer(status: int, version: int, body: bytes) -> tuple[Any, int]:
    value = json.loads(body) if body else None
    if status >= 300:
        raise SessionError(status, value if isinstance(value, dict) else {})
    return value, version


def _event_pairs(role: str | None, content: Any, events: Iterable[Mapping[str, Any]] | None) -> list[tuple[str, str]]:
    if events is not None:
        if role is not None or content is not None:
            raise TypeError("append() takes a role and content, or events=[...], not both")
        return [(str(e["role"]), json.dumps(e["content"], separators=(",", ":"))) for e in events]
    if role is None:
        raise TypeError("append() needs a role and content, or events=[...]")
    return [(role, json.dumps(content, separators=(",", ":")))]


def _check_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not session_id:
        raise SessionError(404, {"title": "Not Found", "status": 404, "detail": "no such session"})
    return session_id


def _state_document(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"))


class Sessions:
    """The session store (SQLite file or PostgreSQL URL) with its sweeper; mount it with `App(sessions=...)`,
    `app.sessions(store, ...)` or `app.mount("/sessions", sessions)`. Options are SessionsOptions' fields
    (slipstream/sessions.h) with the server's defaults: buffered=False, flush_ms=50, max_queued_events=10000,
    max_events=100000, max_event_bytes=65536, max_state_bytes=262144, max_per_principal=1000, ttl_ms=86400000,
    sweep_interval_ms=60000, max_page=1000, metrics=True, append_in_flight=4 and append_batch=64 (PostgreSQL durable
    appends: statements out at once, and the most appends that wait and then go together in one statement). A bad option raises ValueError; a store that cannot be
    opened, RuntimeError. `openapi_path`: where GET also serves the routes' own OpenAPI document (None: only in the
    app's /openapi.json). Several apps may mount one Sessions (and several Sessions may share one SQLite file)."""

    def __init__(self, store: str, *, openapi_path: str | None = None, **options: Any) -> None:
        if not hasattr(_native, "NativeSessions"):
            raise RuntimeError("this build of slipstream has no agent sessions (they need SQLite and libpq)")
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ValueError(f"unknown sessions option(s): {', '.join(unknown)}")
        self.store = store
        self.openapi_path = openapi_path
        self.openapi: dict[str, Any] | None = None
        self.native = _native.NativeSessions({"store_url": store, **options})
        self._completions = Completions(self.native)
        # What a buffered store queued is written when this object goes, at the latest at exit.
        self._finalizer = weakref.finalize(self, self.native.close)

    def install_native(self, native_app: Any, runtime: Any, path: str) -> None:
        """App.mount's hook: the routes under `path` (and the metrics) on the native app."""
        prefix = path.rstrip("/") or "/sessions"
        self.openapi = json.loads(self.native.mount(native_app, prefix, self.openapi_path or ""))

    def session(self, session_id: str, principal: str | None = None) -> AgentSession:
        """The session `session_id` acting as `principal` (None: the anonymous principal)."""
        return AgentSession(self, _check_id(session_id), principal or ANONYMOUS)

    def create(
        self,
        principal: str | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        state: Any = None,
        ttl_ms: int = 0,
    ) -> Any:
        """Awaitable: a new AgentSession owned by `principal` (None: anonymous); 409 past max_per_principal.
        `sync.create` blocks."""
        return self._create(False, principal, metadata=metadata, state=state, ttl_ms=ttl_ms)

    @property
    def sync(self) -> SyncSessions:
        return SyncSessions(self)

    def _create(
        self,
        blocking: bool,
        principal: str | None,
        *,
        metadata: Mapping[str, Any] | None = None,
        state: Any = None,
        ttl_ms: int = 0,
    ) -> Any:
        args = (
            principal or ANONYMOUS,
            _state_document(dict(metadata or {})),
            "" if state is None else _state_document(state),
            ttl_ms,
        )
        return self._run(blocking, "create", args, lambda made, _: AgentSession(self, made["id"], made["owner"]))

    def _run(self, blocking: bool, method: str, args: tuple[Any, ...], pick: Callable[[Any, int], Any]) -> Any:
        """The native call `method(token, *args)`: blocking, its picked answer; else a coroutine of it (the
        answer comes through the eventfd, the executor free meanwhile)."""
        if blocking:
            return pick(*_answer(*getattr(self.native, method)(0, *args)))

        async def awaited() -> Any:
            payload = await self._completions.call(lambda token: getattr(self.native, method)(token, *args))
            status, version, body = payload.split(b" ", 2)
            return pick(*_answer(int(status), int(version), body))

        return awaited()

    def close(self) -> None:
        """Writes what a buffered store queued and closes the store (after the apps stopped)."""
        self._completions.detach()
        self._finalizer()


class SyncSessions:
    """Sessions.create, blocking (the GIL released while the store answers)."""

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def create(self, principal: str | None = None, **fields: Any) -> AgentSession:
        """Sessions.create's keywords (metadata, state, ttl_ms)."""
        return self._sessions._create(True, principal, **fields)


class SyncAgentSession:
    """One session as a principal sees it, each method blocking (the GIL released while the store answers), for
    `def` handlers; AgentSession has the same methods awaitable."""

    _blocking = True

    def __init__(self, sessions: Sessions, session_id: str, principal: str) -> None:
        self.sessions = sessions
        self.id = session_id
        self.principal = principal

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, principal={self.principal!r})"

    def append(
        self,
        role: str | None = None,
        content: Any = None,
        *,
        events: Iterable[Mapping[str, Any]] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Appends one event (role, content: any JSON value) or a batch (events=[{"role", "content"}, ...]) in
        one transaction: {"first_seq", "last_seq", "replayed"}. With an idempotency key seen before on this
        session nothing is added and the original range comes back (replayed True)."""
        args = (self.principal, self.id, _event_pairs(role, content, events), idempotency_key or "")
        return self.sessions._run(self._blocking, "append", args, lambda value, _: value)

    def events(self, after: int = 0, limit: int = 100) -> Any:
        """Events with seq > `after`, oldest first, at most `limit` (and max_page): [{seq, role, content,
        created_at}, ...]."""
        args = (self.principal, self.id, after, limit)
        return self.sessions._run(self._blocking, "events", args, lambda page, _: page["events"])

    def state(self) -> Any:
        """The state document and its version: SessionState(document, version)."""
        return self.sessions._run(self._blocking, "state", (self.principal, self.id), SessionState)

    def update_state(self, document: Any, *, version: int | None = None, patch: bool = False) -> Any:
        """Replaces the state document (patch=True: applies it as a JSON merge patch, RFC 7396): the new
        SessionState. With `version`, only when that is still the stored version: else SessionError 409 with
        `current_version`."""
        args = (self.principal, self.id, _state_document(document), version, patch)
        return self.sessions._run(self._blocking, "write_state", args, SessionState)


class AgentSession(SyncAgentSession):
    """One session as a principal sees it: `await session.append(...)`, `events(...)`, `state()`,
    `update_state(...)` (see SyncAgentSession for each); `session.sync` has them blocking, for `def` handlers."""

    _blocking = False

    def __init__(self, sessions: Sessions, session_id: str, principal: str) -> None:
        super().__init__(sessions, session_id, principal)
        self.sync = SyncAgentSession(sessions, session_id, principal)


def agent_session(request: Request) -> AgentSession:
    """The dependency `session: AgentSession = Depends(agent_session)`: the session named by the route's
    `session_id` (or `id`) path parameter, acting as the request's principal (the API key's or the JWT's; the
    anonymous principal when authentication is off; 401 without credentials when it is on), on the app's sessions
    (App(sessions=...) or app.sessions())."""
    sessions = getattr(request.app, "agent_sessions", None)
    if sessions is None:
        raise RuntimeError("the app has no sessions: pass App(sessions=...) or call app.sessions(...)")
    params = request.path_params
    session_id = params.get("session_id", params.get("id"))
    if session_id is None:
        raise RuntimeError("agent_session needs a {session_id} (or {id}) path parameter")
    principal = request.principal
    if principal is None and getattr(request.app, "server_options", {}).get("auth", "off") != "off":
        # As the routes: with authentication on, a request without credentials acts as nobody.
        raise HTTPException(401, "sessions need an authenticated principal", {"WWW-Authenticate": "Bearer"})
    return sessions.session(session_id, principal)


__all__ = ["AgentSession", "SessionError", "SessionState", "Sessions", "SyncAgentSession", "agent_session"]
