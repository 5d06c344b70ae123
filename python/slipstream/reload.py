"""--reload's helpers: FileWatcher (changed .py files, by polling mtimes) and the one-record account of why new code
could not be loaded (ExceptionTap, describe_failure)."""

from __future__ import annotations

import importlib
import os
import sys
import threading
import traceback
from collections.abc import Iterable, Sequence
from typing import Any

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


class ExceptionTap:
    """Stands in for sys.stderr in a worker process: passes every write through and remembers the exception the
    main thread was handling at its last write. A worker that cannot start prints its traceback to sys.stderr
    from the handler that caught the import error, so the tap holds that error when the worker's target returns."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.exception: BaseException | None = None

    def write(self, text: str) -> int:
        exc = sys.exc_info()[1]
        if exc is not None and threading.current_thread() is threading.main_thread():
            self.exception = exc
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_IMPORTLIB_DIR = os.path.dirname(os.path.abspath(importlib.__file__ or ""))


def _ours(filename: str) -> bool:
    """Frames of the import machinery and of Slipstream itself: not where the user's error is."""
    if filename.startswith("<frozen "):
        return True
    path = os.path.abspath(filename)
    return any(path.startswith(folder + os.sep) for folder in (_PACKAGE_DIR, _IMPORTLIB_DIR))


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def describe_failure(exc: BaseException, frames: int = 3) -> str:
    """Why code could not be loaded, for one log record: "FILE, line N: Type: message", then the last `frames`
    frames of the traceback that are the application's (not importlib's or Slipstream's)."""
    own = [f for f in traceback.extract_tb(exc.__traceback__) if not _ours(f.filename)]
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{_shown(exc.filename)}, line {exc.lineno}"
        message = exc.msg
    elif own:
        where = f"{_shown(own[-1].filename)}, line {own[-1].lineno}"
        message = str(exc)
    else:
        where, message = "", str(exc)
    head = f"{where + ': ' if where else ''}{type(exc).__name__}" + (f": {message}" if message else "")
    lines = [head]
    for frame in own[-frames:]:
        lines.append(f'  File "{_shown(frame.filename)}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    if isinstance(exc, SyntaxError) and exc.text:
        lines.append(f'  File "{_shown(exc.filename or "?")}", line {exc.lineno}')
        lines.append(f"    {exc.text.strip()}")
    return "\n".join(lines)
