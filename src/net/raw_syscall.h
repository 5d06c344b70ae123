// raw_syscall: the data path's system calls entered directly (no libc wrapper, no errno).
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace slipstream::net::detail {

/// Makes system call `nr` with six arguments (the kernel ignores those the call does not take) and returns
/// its result: >= 0, or -errno. glibc's read/send/sendmsg are thread-cancellation points that bracket every
/// call with two atomic updates of the thread's cancel state, and no thread of this server is ever cancelled;
/// its syscall() is a real call that shuffles all seven arguments and stores errno. On x86-64 the instruction
/// is issued in place (~20 instructions less per call, callgrind); elsewhere syscall() does it.
inline long raw_syscall(long nr, long a1, long a2, long a3, long a4 = 0, long a5 = 0, long a6 = 0) {
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
#else
    const long ret = ::syscall(nr, a1, a2, a3, a4, a5, a6);
    return ret < 0 ? -errno : ret;
#endif
}

}  // namespace slipstream::net::detail
