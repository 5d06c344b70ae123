// SocketPair: a connected, non-blocking AF_UNIX stream pair for the net tests (test-only header).
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>

#include "net/fd.h"

namespace slipstream::net {

/// Both ends owned; `a` is usually handed to the code under test, `b` plays the peer.
struct SocketPair {
    Fd a;
    Fd b;
    SocketPair() {
        int fds[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
        a.reset(fds[0]);
        b.reset(fds[1]);
    }
};

}  // namespace slipstream::net
