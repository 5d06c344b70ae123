// OutputQueue: bytes waiting to be written to a socket: small pieces coalesced, large bodies kept zero-copy.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <deque>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::server {

/// Small writes (response heads, short bodies) are appended to a coalescing piece; a large body is moved
/// in as its own piece, so it is never copied. flush() writes everything with one writev when it can.
/// Loop thread only.
class OutputQueue {
  public:
    /// Bodies at least this large are queued by move instead of copied.
    static constexpr std::size_t kMoveThreshold = 16 * 1024;

    void append(std::string_view bytes);
    void append(std::string&& bytes);
    /// Moves everything queued in `other` to the end of this queue.
    void take_all(OutputQueue& other);
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    /// Writes as much as the socket takes. Returns the bytes written; kUnavailable when the socket would
    /// block before anything was written; kIoError when the connection is broken.
    base::Result<std::size_t> flush(int fd);
    /// Writes through `write` instead of a socket (how a TLS connection flushes): `write` gets the queued
    /// pieces in order and returns the bytes it took, or kUnavailable / an error as write_some does.
    /// Same outcomes as flush(fd).
    using WriteFn = base::Result<std::size_t> (*)(void* context, std::span<const iovec> pieces);
    base::Result<std::size_t> flush_to(WriteFn write, void* context);
    /// Drops everything (the connection is closing without sending).
    void clear();

  private:
    void consume(std::size_t n);

    std::deque<std::string> pieces_;
    std::size_t front_offset_ = 0;  // bytes of pieces_.front() already written
    std::size_t size_ = 0;
    bool tail_open_ = false;  // pieces_.back() may receive small appends
};

}  // namespace slipstream::server
