"""--baseline-build: the Python contenders again on an earlier commit's build, in the same run and rounds.

A baseline is a CMake build folder configured with -DSLIPSTREAM_PYTHON=ON in a checkout of the earlier commit (a
separate git worktree, so that its build folder is its own). Its contenders import that checkout's python/slipstream
with the extension built there, never the .venv's editable install (baseline_boot.py), and run the same app file
as the current ones, so both serve the same handlers.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import subprocess
import sys

from .contenders import Contender, Launch, LaunchContext

BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline_boot.py")


@dataclasses.dataclass(frozen=True)
class BaselineBuild:
    build_dir: str
    checkout: str
    extension: str
    commit: str


def find(build_dir: str) -> BaselineBuild:
    """The checkout, built extension and short commit of `build_dir`; ValueError when one is missing."""
    build_dir = os.path.abspath(build_dir)
    found = sorted(glob.glob(os.path.join(build_dir, "python", "bindings", "_native*.so")))
    if not found:
        raise ValueError(
            f"{build_dir}: no python/bindings/_native*.so (configure with -DSLIPSTREAM_PYTHON=ON "
            "and build the _native target)"
        )
    top = subprocess.run(
        ["git", "-C", build_dir, "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if not top or not os.path.isdir(os.path.join(top, "python", "slipstream")):
        raise ValueError(f"{build_dir}: not inside a checkout with python/slipstream")
    commit = subprocess.run(
        ["git", "-C", top, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return BaselineBuild(build_dir, top, found[0], commit or "unknown")


def contender(current: Contender, build: BaselineBuild) -> Contender:
    """`current` (a Python contender started as `python app.py ...`) on the baseline build, named name@commit."""

    def launch(c: Contender, ctx: LaunchContext) -> Launch:
        own = current.build(current, ctx)
        if len(own.argv) < 2 or own.argv[0] != sys.executable or not own.argv[1].endswith(".py"):
            raise ValueError(f"{current.name} does not start as `python app.py`: no baseline launch")
        return Launch(
            [sys.executable, BOOT, build.checkout, build.extension, *own.argv[1:]], own.cwd, own.env, own.h2_port
        )

    return dataclasses.replace(
        current,
        name=f"{current.name}@{build.commit}",
        build=launch,
        versions=(),
        description=f"{current.description}; commit {build.commit} ({os.path.relpath(build.build_dir)})",
    )


def add(chosen: list[Contender], build_dirs: list[str]) -> list[Contender]:
    """`chosen` with, after each Python slipstream contender started as a script, its twin on each baseline."""
    builds = [find(d) for d in build_dirs]
    out = []
    for c in chosen:
        out.append(c)
        if c.kind == "slipstream" and c.expects is not None and c.workers == 1 and c.app == "bench":
            out += [contender(c, b) for b in builds]
    return out
