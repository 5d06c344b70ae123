"""FileWatcher: notices changed, added or removed .py files under some folders by polling their mtimes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

# Folders never watched: tool state, caches, virtual environments, build output.
_SKIP = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


def _skip(name: str) -> bool:
    return name.startswith(".") or name in _SKIP or name.endswith(".egg-info")


class FileWatcher:
    """Snapshot of (path -> mtime_ns) of files matching `suffixes` below `roots`; changed() compares with the
    previous snapshot. Polling needs no extra dependency and works on every file system."""

    def __init__(self, roots: Sequence[str], suffixes: Iterable[str] = (".py",)) -> None:
        self.roots = [os.path.abspath(r) for r in roots]
        self.suffixes = tuple(suffixes)
        self._snapshot = self._scan()

    def _scan(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for root in self.roots:
            self._walk(root, found)
        return found

    def _walk(self, folder: str, found: dict[str, int]) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not _skip(entry.name):
                        self._walk(entry.path, found)
                elif entry.name.endswith(self.suffixes):
                    found[entry.path] = entry.stat().st_mtime_ns
            except OSError:
                continue  # removed while scanning

    def changed(self) -> list[str]:
        """The files added, removed or modified since the last call (or since construction)."""
        current = self._scan()
        previous, self._snapshot = self._snapshot, current
        paths = set(previous) | set(current)
        return sorted(p for p in paths if previous.get(p) != current.get(p))
