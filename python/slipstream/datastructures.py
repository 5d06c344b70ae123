"""Headers, QueryParams and URL: the read-only request views handlers see (Starlette-compatible subset)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from urllib.parse import parse_qsl


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


class URL:
    """scheme://netloc/path?query of a request."""

    __slots__ = ("netloc", "path", "query", "scheme")

    def __init__(self, scheme: str, netloc: str, path: str, query: str) -> None:
        self.scheme = scheme
        self.netloc = netloc
        self.path = path
        self.query = query

    def __str__(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.path}" + (f"?{self.query}" if self.query else "")

    def __repr__(self) -> str:
        return f"URL({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
