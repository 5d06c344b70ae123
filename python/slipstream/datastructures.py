"""Headers, QueryParams, URL, FormData and UploadFile: the request views handlers see (Starlette-compatible)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO, NamedTuple
from urllib.parse import parse_qsl

from pydantic_core import core_schema


class Headers(Mapping[str, str]):
    """Case-insensitive, multi-valued; `headers["x"]` is the first value, `getlist("x")` all of them."""

    __slots__ = ("_list",)

    def __init__(self, raw: list[tuple[str, str]] | Mapping[str, str] | None = None) -> None:
        if raw is None:
            self._list: list[tuple[str, str]] = []
        elif isinstance(raw, Mapping):
            self._list = [(k.lower(), v) for k, v in raw.items()]
        else:
            self._list = [(k.lower(), v) for k, v in raw]

    def __getitem__(self, key: str) -> str:
        key = key.lower()
        for k, v in self._list:
            if k == key:
                return v
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and any(k == key.lower() for k, _ in self._list)

    def __iter__(self) -> Iterator[str]:
        seen = []
        for k, _ in self._list:
            if k not in seen:
                seen.append(k)
        return iter(seen)

    def __len__(self) -> int:
        return len({k for k, _ in self._list})

    def getlist(self, key: str) -> list[str]:
        key = key.lower()
        return [v for k, v in self._list if k == key]

    def raw_items(self) -> list[tuple[str, str]]:
        return list(self._list)

    def __repr__(self) -> str:
        return f"Headers({self._list!r})"


class QueryParams(Mapping[str, str]):
    """The query string as Starlette parses it: the last value of a key wins for `[]`; `getlist` gives all."""

    __slots__ = ("_dict", "_list")

    def __init__(self, query: str = "") -> None:
        self._list = parse_qsl(query, keep_blank_values=True)
        self._dict = dict(self._list)

    def __getitem__(self, key: str) -> str:
        return self._dict[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def getlist(self, key: str) -> list[str]:
        return [v for k, v in self._list if k == key]

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._list)

    def __repr__(self) -> str:
        return f"QueryParams({self._list!r})"


class Address(NamedTuple):
    """The client's (or server's) `(host, port)`, as Starlette's: `request.client.host`, `request.client.port`."""

    host: str
    port: int


class URL:
    """scheme://netloc/path?query of a request (Starlette's URL: `hostname`, `port`, `is_secure`, `replace()`)."""

    __slots__ = ("netloc", "path", "query", "scheme")

    def __init__(self, scheme: str, netloc: str, path: str, query: str = "") -> None:
        self.scheme = scheme
        self.netloc = netloc
        self.path = path
        self.query = query

    @property
    def hostname(self) -> str | None:
        """The host without port and brackets (None when the URL has no host)."""
        host = self.netloc.rpartition("@")[2]
        if host.startswith("["):
            return host[1:host.find("]")] or None
        return host.partition(":")[0] or None

    @property
    def port(self) -> int | None:
        """The explicit port, None when the netloc has none."""
        host = self.netloc.rpartition("@")[2]
        tail = host[host.find("]") + 1:] if host.startswith("[") else host
        _, sep, port = tail.partition(":")
        return int(port) if sep and port.isdigit() else None

    @property
    def is_secure(self) -> bool:
        return self.scheme in ("https", "wss")

    def replace(self, **components: Any) -> URL:
        """A copy with some of scheme, netloc, hostname, port, path and query replaced."""
        if "hostname" in components or "port" in components:
            hostname = components.pop("hostname", None) or self.hostname or ""
            port = components.pop("port", self.port)
            if ":" in hostname and not hostname.startswith("["):
                hostname = f"[{hostname}]"
            components["netloc"] = hostname if port is None else f"{hostname}:{port}"
        unknown = set(components) - {"scheme", "netloc", "path", "query"}
        if unknown:
            raise TypeError(f"URL.replace: unknown component(s) {', '.join(sorted(unknown))}")
        values = {"scheme": self.scheme, "netloc": self.netloc, "path": self.path, "query": self.query, **components}
        return URL(values["scheme"], values["netloc"], values["path"], values["query"])

    def __str__(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.path}" + (f"?{self.query}" if self.query else "")

    def __repr__(self) -> str:
        return f"URL({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class URLPath(str):
    """A route's path from `url_path_for` (Starlette's URLPath): a str, and `make_absolute_url(base_url)`."""

    def __new__(cls, path: str, protocol: str = "http", host: str = "") -> URLPath:  # noqa: PYI034 - a str subclass made by its own constructor only
        return str.__new__(cls, path)

    def __init__(self, path: str, protocol: str = "http", host: str = "") -> None:
        self.protocol = protocol
        self.host = host

    def make_absolute_url(self, base_url: str | URL) -> URL:
        """This path under `base_url` (its root path kept), with ws/wss for WebSocket routes."""
        if isinstance(base_url, str):
            scheme, _, rest = base_url.partition("://")
            netloc, slash, path = rest.partition("/")
            base_url = URL(scheme, netloc, slash + path)
        secure = base_url.is_secure
        scheme = {"http": "https" if secure else "http", "websocket": "wss" if secure else "ws"}.get(
            self.protocol, base_url.scheme)
        return URL(scheme, self.host or base_url.netloc, base_url.path.rstrip("/") + str(self))


class ImmutableMultiDict(Mapping[str, Any]):
    """Starlette's ImmutableMultiDict: `d[k]` is the last value of k, `getlist(k)` every value, in order."""

    __slots__ = ("_dict", "_list")

    def __init__(self, items: Any = ()) -> None:
        if isinstance(items, ImmutableMultiDict):
            pairs = items.multi_items()
        elif isinstance(items, Mapping):
            pairs = list(items.items())
        else:
            pairs = list(items)
        self._list: list[tuple[str, Any]] = pairs
        self._dict: dict[str, Any] = dict(pairs)

    def __getitem__(self, key: str) -> Any:
        return self._dict[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def getlist(self, key: str) -> list[Any]:
        return [v for k, v in self._list if k == key]

    def multi_items(self) -> list[tuple[str, Any]]:
        return list(self._list)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ImmutableMultiDict) and sorted(self._list, key=repr) == sorted(other._list, key=repr)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._list!r})"


class UploadFile:
    """An uploaded file (Starlette's/FastAPI's UploadFile): `file` is a SpooledTemporaryFile, in memory up to the
    app's spool size and on disk past it; read/seek/write/close are async and go to a thread once on disk."""

    def __init__(self, file: BinaryIO, *, size: int | None = None, filename: str | None = None,
                 headers: Headers | None = None) -> None:
        self.filename = filename
        self.file = file
        self.size = size
        self.headers = headers or Headers()
        self._max_mem_size = getattr(self.file, "_max_size", 0)

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type", None)

    @property
    def _in_memory(self) -> bool:
        return not getattr(self.file, "_rolled", True)

    def _will_roll(self, size_to_add: int) -> bool:
        if not self._in_memory:
            return True
        future_size = self.file.tell() + size_to_add
        return bool(future_size > self._max_mem_size) if self._max_mem_size else False

    async def write(self, data: bytes) -> None:
        if self.size is not None:
            self.size += len(data)
        if self._will_roll(len(data)):
            await asyncio.to_thread(self.file.write, data)
        else:
            self.file.write(data)

    async def read(self, size: int = -1) -> bytes:
        if self._in_memory:
            return self.file.read(size)
        return await asyncio.to_thread(self.file.read, size)

    async def seek(self, offset: int) -> None:
        if self._in_memory:
            self.file.seek(offset)
        else:
            await asyncio.to_thread(self.file.seek, offset)

    async def close(self) -> None:
        if self._in_memory:
            self.file.close()
        else:
            await asyncio.to_thread(self.file.close)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(filename={self.filename!r}, size={self.size!r}, headers={self.headers!r})"

    @classmethod
    def _validate(cls, value: Any, _info: Any = None) -> UploadFile:
        if not isinstance(value, UploadFile):
            raise ValueError(f"Expected UploadFile, received: {type(value)}")  # noqa: TRY004 - pydantic's value_error
        return value

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        return core_schema.with_info_plain_validator_function(cls._validate)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "contentMediaType": "application/octet-stream"}


class FormData(ImmutableMultiDict):
    """A parsed form: text fields (str) and files (UploadFile), in body order."""

    async def close(self) -> None:
        for _, value in self.multi_items():
            if isinstance(value, UploadFile):
                await value.close()

    def close_sync(self) -> None:
        """Closes every file now (for code that runs outside the event loop)."""
        for _, value in self.multi_items():
            if isinstance(value, UploadFile):
                value.file.close()
