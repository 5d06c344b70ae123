"""Exits 0 when this kernel lets the process create an io_uring (io_uring_setup(2) succeeds), else says why and
exits 1: `make test` runs the end-to-end suite a second time on the io_uring loop only where it can."""

import ctypes
import os
import sys

SYS_IO_URING_SETUP = 425  # the same number on x86_64 and aarch64


def main() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    fd = libc.syscall(SYS_IO_URING_SETUP, 4, params)
    if fd < 0:
        print(f"io_uring end-to-end run skipped: io_uring_setup failed ({os.strerror(ctypes.get_errno())})")
        return 1
    os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
