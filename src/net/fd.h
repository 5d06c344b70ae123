// Fd: an owned file descriptor, closed on destruction.
#pragma once

#include <utility>

namespace slipstream::net {

/// Owns one file descriptor (or none: -1). Move-only. Not thread-safe (a value type).
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) reset(std::exchange(other.fd_, -1));
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    explicit operator bool() const { return valid(); }
    /// Gives up ownership without closing.
    int release() { return std::exchange(fd_, -1); }
    /// Closes the current fd (if any; errors from close are ignored, as the fd is gone either way) and
    /// takes `fd`.
    void reset(int fd = -1);

  private:
    int fd_ = -1;
};

}  // namespace slipstream::net
