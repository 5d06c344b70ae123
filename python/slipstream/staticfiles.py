"""StaticFiles: a directory served under a mount path (Starlette's API): `app.mount("/static", StaticFiles(...))`."""

from __future__ import annotations

import errno
import importlib.util
import os
import stat
from collections.abc import Sequence
from typing import Any

from ._file_response import FileResponse, not_modified
from .exceptions import HTTPException
from .requests import Request
from .responses import RedirectResponse, Response

PathLike = str | os.PathLike[str]


class NotModifiedResponse(Response):
    """304 with the validators and caching headers of the response it stands for (Starlette's)."""

    NOT_MODIFIED_HEADERS = ("cache-control", "content-location", "date", "etag", "expires", "vary")

    def __init__(self, headers: Any) -> None:
        super().__init__(status_code=304, headers={k: v for k, v in headers.items() if k in self.NOT_MODIFIED_HEADERS})


class StaticFiles:
    """Files under `directory` (and/or the `statics` folders of `packages`). `html=True`: a folder serves its
    index.html and a missing file the directory's 404.html. A path that leaves the directory (`..`, symlinks
    unless `follow_symlink`) is answered 404. GET and HEAD only; ETag/Last-Modified/304 and Range as FileResponse."""

    def __init__(self, *, directory: PathLike | None = None, packages: Sequence[str | tuple[str, str]] | None = None,
                 html: bool = False, check_dir: bool = True, follow_symlink: bool = False) -> None:
        self.directory = directory
        self.packages = packages
        self.all_directories = self.get_directories(directory, packages)
        self.html = html
        self.follow_symlink = follow_symlink
        if check_dir and directory is not None and not os.path.isdir(directory):
            raise RuntimeError(f"Directory '{directory}' does not exist")

    @staticmethod
    def get_directories(directory: PathLike | None,
                        packages: Sequence[str | tuple[str, str]] | None) -> list[PathLike]:
        directories: list[PathLike] = [directory] if directory is not None else []
        for package in packages or []:
            name, folder = package if isinstance(package, tuple) else (package, "statics")
            spec = importlib.util.find_spec(name)
            if spec is None or spec.origin is None:
                raise RuntimeError(f"Package {name!r} could not be found.")
            path = os.path.normpath(os.path.join(spec.origin, "..", folder))
            if not os.path.isdir(path):
                raise RuntimeError(f"Directory '{folder}' in package {name!r} could not be found.")
            directories.append(path)
        return directories

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        for directory in self.all_directories:
            joined = os.path.join(directory, path)
            if self.follow_symlink:
                full, base = os.path.abspath(joined), os.path.abspath(directory)
            else:
                full, base = os.path.realpath(joined), os.path.realpath(directory)
            if os.path.commonpath([full, base]) != str(base):
                continue  # outside the directory
            try:
                return full, os.stat(full)
            except (FileNotFoundError, NotADirectoryError):
                continue
        return "", None

    def file_response(self, full_path: str, stat_result: os.stat_result, request: Request,
                      status_code: int = 200) -> Response:
        response = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        if not_modified(response.headers, lambda name: request.headers.get(name)):
            return NotModifiedResponse(response.headers)
        return response

    def get_response(self, path: str, request: Request) -> Response:
        """Starlette's get_response (the stat calls are quick local metadata reads, done inline)."""
        path = os.path.normpath(os.path.join(*path.split("/"))) if path else "."
        try:
            full_path, stat_result = self.lookup_path(path)
        except PermissionError:
            raise HTTPException(status_code=401) from None
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                raise HTTPException(status_code=404) from None
            raise
        if stat_result is not None and stat.S_ISREG(stat_result.st_mode):
            return self.file_response(full_path, stat_result, request)
        if stat_result is not None and stat.S_ISDIR(stat_result.st_mode) and self.html:
            full_path, stat_result = self.lookup_path(os.path.join(path, "index.html"))
            if stat_result is not None and stat.S_ISREG(stat_result.st_mode):
                if not request.path.endswith("/"):
                    return RedirectResponse(url=str(request.url).replace(request.path, request.path + "/", 1))
                return self.file_response(full_path, stat_result, request)
        if self.html:
            full_path, stat_result = self.lookup_path("404.html")
            if stat_result is not None and stat.S_ISREG(stat_result.st_mode):
                return FileResponse(full_path, stat_result=stat_result, status_code=404)
        raise HTTPException(status_code=404)


def mount(router: Any, path: str, app: Any, name: str | None = None) -> None:
    """Serves `app` (a StaticFiles) under `path`: GET/HEAD `path/{rest}`, and `path` redirects to `path/`
    (Starlette's slash redirect)."""
    if not isinstance(app, StaticFiles):
        raise TypeError("slipstream can mount StaticFiles only")
    if not path.startswith("/") or path.endswith("/"):
        raise ValueError(f"a mount path must start with '/' and must not end with '/': {path!r}")
    static = app

    def serve_static(request: Request, path: str) -> Response:
        return static.get_response(path, request)

    def redirect_static(request: Request) -> Response:
        return RedirectResponse(url=str(request.url).replace(request.path, request.path + "/", 1))

    serve_static.__slipstream_mount__ = "files"  # type: ignore[attr-defined] - url_path_for(name, path=...)
    redirect_static.__slipstream_mount__ = "redirect"  # type: ignore[attr-defined]
    options = {"include_in_schema": False, "name": name}
    router.add_api_route(path + "/{path:path}", serve_static, methods=["GET", "HEAD"], **options)
    router.add_api_route(path, redirect_static, methods=["GET", "HEAD"], **options)


__all__ = ["NotModifiedResponse", "StaticFiles", "mount"]
