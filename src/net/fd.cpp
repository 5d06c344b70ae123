// Fd: closing an owned descriptor.
#include "net/fd.h"

#include <unistd.h>

namespace slipstream::net {

void Fd::reset(int fd) {
    if (fd_ >= 0 && fd_ != fd) {
        // Linux closes the descriptor even when close() reports EINTR, so never retry.
        ::close(fd_);
    }
    fd_ = fd;
}

}  // namespace slipstream::net
