// IoHandler: the interface an EventLoop calls when a registered fd is ready.
#pragma once

#include <cstdint>

namespace slipstream::net {

/// Receives readiness for the fds registered with it on an EventLoop. Called on the loop thread only.
/// One handler may serve several fds (it is told nothing but the events, so it usually serves one).
class IoHandler {
  public:
    /// `events` is the epoll event mask (EPOLLIN, EPOLLOUT, EPOLLRDHUP, EPOLLHUP, EPOLLERR). The handler may
    /// call any loop method from here, including remove() of its own fd and destroying itself after that.
    virtual void on_io(std::uint32_t events) = 0;

  protected:
    ~IoHandler() = default;
};

}  // namespace slipstream::net
