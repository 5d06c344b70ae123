"""Supervisor: N forked worker processes serving one port (SO_REUSEPORT), restarted when one dies, all of them
restarted when watched files change (--reload); SIGTERM/SIGINT are forwarded for a graceful drain."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from .reload import FileWatcher

EXIT_STARTUP_FAILED = 3
"""A worker's exit status when the app could not be imported or bound: restarting it would fail the same way."""

_SIGNALS = {signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
_FAST_EXIT_S = 1.0        # a worker that dies sooner than this after its start is restarted after a back-off
_MAX_BACKOFF_S = 5.0
_PR_SET_PDEATHSIG = 1

logger = logging.getLogger("slipstream.supervisor")


def _die_with_parent() -> None:
    """Linux: the worker gets SIGTERM when the supervisor dies, so that no orphan keeps the port."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)


class _Slot:
    """One worker position: its process and its restart history."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.pid = 0
        self.started = 0.0
        self.fast_failures = 0
        self.not_before = 0.0   # earliest restart time after fast failures
        self.failed_startup = False


class Supervisor:
    """Runs `target` (imports the app and serves; returns an exit status) in `workers` child processes.

    The supervisor never imports the app, so each (re)started worker loads the code as it is on disk.
    `watcher`: reload every worker when it reports changes (polled every `reload_interval` seconds).
    `close_in_child`: objects with close() the workers must not keep (the supervisor's port reservation)."""

    def __init__(self, target: Callable[[], int], workers: int, *, watcher: FileWatcher | None = None,
                 reload_interval: float = 0.5, close_in_child: Sequence[Any] = ()) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.target = target
        self.slots = [_Slot(i) for i in range(workers)]
        self.watcher = watcher
        self.reload_interval = reload_interval
        self.close_in_child = list(close_in_child)
        self.stopping = False
        self.exit_code = 0
        self._mask: set[signal.Signals] = set()

    # -- child side -----------------------------------------------------------------------------------------
    def _child(self) -> None:
        code = 1
        try:
            _die_with_parent()
            for obj in self.close_in_child:
                obj.close()
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
                signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
            code = int(self.target() or 0)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - a worker reports everything and exits
            traceback.print_exc()
            code = 1
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)

    # -- parent side ----------------------------------------------------------------------------------------
    def _spawn(self, slot: _Slot) -> None:
        pid = os.fork()
        if pid == 0:
            self._child()
        slot.pid = pid
        slot.started = time.monotonic()
        slot.failed_startup = False
        logger.info("worker %d started (pid %d)", slot.index, pid)

    def _signal_all(self, signum: int) -> None:
        for slot in self.slots:
            if slot.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.pid, signum)

    def _alive(self) -> list[_Slot]:
        return [s for s in self.slots if s.pid]

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            for slot in self.slots:
                if slot.pid == pid:
                    self._exited(slot, status)

    def _exited(self, slot: _Slot, status: int) -> None:
        pid, slot.pid = slot.pid, 0
        code = os.waitstatus_to_exitcode(status)
        if self.stopping:
            return
        how = f"signal {-code}" if code < 0 else f"status {code}"
        if code == EXIT_STARTUP_FAILED:
            slot.failed_startup = True
            if self.watcher is None:
                logger.error("worker %d (pid %d) could not start (%s); stopping", slot.index, pid, how)
                self.exit_code = 1
                self._stop()
            else:
                logger.error("worker %d (pid %d) could not start (%s); waiting for a file change", slot.index, pid,
                             how)
            return
        now = time.monotonic()
        slot.fast_failures = slot.fast_failures + 1 if now - slot.started < _FAST_EXIT_S else 0
        slot.not_before = now + min(_MAX_BACKOFF_S, 0.1 * 2 ** slot.fast_failures) if slot.fast_failures else now
        logger.warning("worker %d (pid %d) exited with %s; restarting", slot.index, pid, how)

    def _restart_due(self) -> None:
        now = time.monotonic()
        for slot in self.slots:
            if not slot.pid and not slot.failed_startup and not self.stopping and slot.not_before <= now:
                self._spawn(slot)

    def _stop(self, force: bool = False) -> None:
        self.stopping = True
        self._signal_all(signal.SIGKILL if force else signal.SIGTERM)

    def _reload(self, changed: list[str]) -> None:
        logger.info("reloading: %s", ", ".join(os.path.relpath(p) for p in changed[:5]))
        self._signal_all(signal.SIGTERM)
        for slot in self._alive():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(slot.pid, 0)
            slot.pid = 0
        for slot in self.slots:
            slot.failed_startup = False
            slot.fast_failures = 0
            slot.not_before = 0.0

    def _timeout(self) -> float | None:
        waits = [s.not_before - time.monotonic() for s in self.slots if not s.pid and not s.failed_startup]
        if self.watcher is not None and not self.stopping:
            waits.append(self.reload_interval)
        return max(0.0, min(waits)) if waits else None

    def run(self) -> int:
        """Serves until SIGINT/SIGTERM (a second one kills the workers); returns the exit status."""
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            for slot in self.slots:
                self._spawn(slot)
            while not (self.stopping and not self._alive()):
                timeout = self._timeout()
                info = signal.sigtimedwait(_SIGNALS, timeout) if timeout is not None else signal.sigwaitinfo(_SIGNALS)
                if info is not None and info.si_signo in (signal.SIGINT, signal.SIGTERM):
                    logger.info("stopping %d worker(s)%s", len(self._alive()), " now" if self.stopping else "")
                    self._stop(force=self.stopping)
                elif info is not None and info.si_signo == signal.SIGHUP and not self.stopping:
                    self._reload(["(SIGHUP)"])
                self._reap()
                if self.watcher is not None and not self.stopping and info is None:
                    changed = self.watcher.changed()
                    if changed:
                        self._reload(changed)
                self._restart_due()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
        return self.exit_code
