"""Supervisor: N forked worker processes serving one port (SO_REUSEPORT), restarted when one dies, replaced when
watched files change (--reload) once the new ones listen; SIGTERM/SIGINT are forwarded for a graceful drain."""

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

from .reload import ExceptionTap, FileWatcher, describe_failure

EXIT_STARTUP_FAILED = 3
"""A worker's exit status when the app could not be imported or bound: restarting it would fail the same way."""

_SIGNALS = {signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
_FAST_EXIT_S = 1.0        # a worker that dies sooner than this after its start is restarted after a back-off
_MAX_BACKOFF_S = 5.0
_PR_SET_PDEATHSIG = 1
_SETTLE_S = 3.0           # without /proc, a new worker alive this long counts as started
_REPORT_MAX = 4096        # bytes of a worker's account of its failed start
_TCP_LISTEN = "0A"        # the LISTEN state in /proc/net/tcp

logger = logging.getLogger("slipstream.supervisor")


def _die_with_parent() -> None:
    """Linux: the worker gets SIGTERM when the supervisor dies, so that no orphan keeps the port."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)


def _listening(pid: int) -> bool | None:
    """Whether process `pid` holds a listening TCP socket (it imported the app and bound); None where /proc
    cannot tell. A worker inherits no listening socket (the supervisor's reservation is bound, not listening)."""
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    sockets = set()
    for name in names:
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{name}")
            if link.startswith("socket:["):
                sockets.add(link[8:-1])
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/net/{table}") as rows:
            next(rows, None)
            for row in rows:
                fields = row.split()
                if len(fields) > 9 and fields[3] == _TCP_LISTEN and fields[9] in sockets:
                    return True
    return False


class _Slot:
    """One worker position: its process and its restart history."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.pid = 0
        self.started = 0.0
        self.fast_failures = 0
        self.not_before = 0.0   # earliest restart time after fast failures
        self.failed_startup = False
        self.report_fd = -1     # read end of the pipe on which the worker explains a failed start


class Supervisor:
    """Runs `target` (imports the app and serves; returns an exit status) in `workers` child processes.

    The supervisor never imports the app, so each (re)started worker loads the code as it is on disk. A target
    that cannot start prints its traceback to sys.stderr and returns EXIT_STARTUP_FAILED; the supervisor logs
    where the error is (reload.describe_failure).
    `watcher`: reload when it reports changes (polled every `reload_interval` seconds): a new generation of
    workers starts beside the old one, which is stopped (drained) once every new worker listens; a new generation
    that fails leaves the old one serving until the next change.
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
        self.pending: list[_Slot] = []  # the generation a reload is starting
        self.retiring: set[int] = set()  # workers told to stop that are not waited for
        self.stopping = False
        self.exit_code = 0
        self._mask: set[signal.Signals] = set()

    # -- child side -----------------------------------------------------------------------------------------
    def _child(self, report_fd: int) -> None:
        code = 1
        tap = ExceptionTap(sys.stderr)
        try:
            _die_with_parent()
            for obj in self.close_in_child:
                obj.close()
            for slot in self.slots + self.pending:
                if slot.report_fd >= 0:
                    os.close(slot.report_fd)
            sys.stderr = tap
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
                signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
            code = int(self.target() or 0)
            if code == EXIT_STARTUP_FAILED and tap.exception is not None:
                os.write(report_fd, describe_failure(tap.exception).encode(errors="replace")[:_REPORT_MAX])
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
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            self._child(write_fd)
        os.close(write_fd)
        os.set_blocking(read_fd, False)  # a grandchild may hold the write end: never wait for its EOF
        self._close_report(slot)
        slot.report_fd = read_fd
        slot.pid = pid
        slot.started = time.monotonic()
        slot.failed_startup = False
        logger.info("worker %d started (pid %d)", slot.index, pid)

    @staticmethod
    def _close_report(slot: _Slot) -> None:
        if slot.report_fd >= 0:
            os.close(slot.report_fd)
            slot.report_fd = -1

    def _report(self, slot: _Slot) -> str:
        """What the exited worker wrote about its failed start ("" when nothing), read once."""
        data = b""
        with contextlib.suppress(OSError):
            data = os.read(slot.report_fd, _REPORT_MAX) if slot.report_fd >= 0 else b""
        self._close_report(slot)
        return data.decode(errors="replace")

    def _pids(self) -> list[int]:
        return [s.pid for s in self.slots + self.pending if s.pid] + sorted(self.retiring)

    def _signal_all(self, signum: int) -> None:
        for pid in self._pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def _retire(self, slots: list[_Slot]) -> None:
        """SIGTERM (a graceful drain) to these workers; they are reaped without being restarted."""
        for slot in slots:
            self._close_report(slot)
            if slot.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.pid, signal.SIGTERM)
                self.retiring.add(slot.pid)
                slot.pid = 0

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
            self.retiring.discard(pid)
            for slot in self.slots:
                if slot.pid == pid:
                    self._exited(slot, status)
            for slot in self.pending:
                if slot.pid == pid:
                    self._pending_exited(slot, status)

    @staticmethod
    def _how(status: int) -> str:
        code = os.waitstatus_to_exitcode(status)
        return f"signal {-code}" if code < 0 else f"status {code}"

    def _pending_exited(self, slot: _Slot, status: int) -> None:
        """A worker of a reload's new generation died before every one of them listened: the generation is
        dropped and the previous one keeps serving."""
        pid, slot.pid = slot.pid, 0
        why = self._report(slot)
        self._retire(self.pending)
        self.pending = []
        if self.stopping:
            return
        serving = len(self._alive())
        logger.error("reload: new worker %d (pid %d) could not start (%s); waiting for a file change; "
                     "%d worker(s) still serve the previous code%s", slot.index, pid, self._how(status), serving,
                     ":\n" + why if why else "")

    def _exited(self, slot: _Slot, status: int) -> None:
        pid, slot.pid = slot.pid, 0
        code = os.waitstatus_to_exitcode(status)
        why = self._report(slot)
        if self.stopping:
            return
        how = self._how(status)
        if code == EXIT_STARTUP_FAILED:
            slot.failed_startup = True
            detail = ":\n" + why if why else ""
            if self.watcher is None:
                logger.error("worker %d (pid %d) could not start (%s); stopping%s", slot.index, pid, how, detail)
                self.exit_code = 1
                self._stop()
            else:
                logger.error("worker %d (pid %d) could not start (%s); waiting for a file change%s", slot.index,
                             pid, how, detail)
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
        self._retire(self.pending)  # a generation still starting is replaced by one with the newest code
        self.pending = []
        if not self._alive():  # nothing serves: start the workers in place
            for slot in self.slots:
                slot.failed_startup = False
                slot.fast_failures = 0
                slot.not_before = 0.0
            return
        self.pending = [_Slot(slot.index) for slot in self.slots]
        for slot in self.pending:
            self._spawn(slot)

    def _promote_if_ready(self) -> None:
        """When every worker of the new generation listens, the old generation drains and exits."""
        now = time.monotonic()
        for slot in self.pending:
            listening = _listening(slot.pid)
            if not (listening or (listening is None and now - slot.started >= _SETTLE_S)):
                return
        old, self.slots, self.pending = self.slots, self.pending, []
        self._retire(old)
        logger.info("reloaded: %d worker(s) serve the new code", len(self.slots))

    def _timeout(self) -> float | None:
        waits = [s.not_before - time.monotonic() for s in self.slots if not s.pid and not s.failed_startup]
        if (self.watcher is not None or self.pending) and not self.stopping:
            waits.append(self.reload_interval)
        return max(0.0, min(waits)) if waits else None

    def run(self) -> int:
        """Serves until SIGINT/SIGTERM (a second one kills the workers); returns the exit status."""
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            for slot in self.slots:
                self._spawn(slot)
            while not (self.stopping and not self._pids()):
                timeout = self._timeout()
                info = signal.sigtimedwait(_SIGNALS, timeout) if timeout is not None else signal.sigwaitinfo(_SIGNALS)
                if info is not None and info.si_signo in (signal.SIGINT, signal.SIGTERM):
                    logger.info("stopping %d worker(s)%s", len(self._pids()), " now" if self.stopping else "")
                    self._stop(force=self.stopping)
                elif info is not None and info.si_signo == signal.SIGHUP and not self.stopping:
                    self._reload(["(SIGHUP)"])
                self._reap()
                if self.watcher is not None and not self.stopping and info is None:
                    changed = self.watcher.changed()
                    if changed:
                        self._reload(changed)
                if self.pending and not self.stopping:
                    self._promote_if_ready()
                self._restart_due()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
        return self.exit_code
