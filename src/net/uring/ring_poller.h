// RingPoller: the io_uring backend of EventLoop: one submit-and-wait per iteration instead of epoll_wait.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/status.h"
#include "net/io_handler.h"
#include "net/stream_io.h"
#include "net/timer_wheel.h"
#include "net/uring/buffer_ring.h"
#include "net/uring/ring_socket.h"

namespace slipstream::net::uring {

/// Registrations (add/modify/remove with epoll event masks) keep EventLoop's contract: readiness fds get a
/// level-triggered poll; stream sockets (add_stream) receive and send through the ring, their SQEs queued and
/// submitted together by wait(), so a keep-alive request costs one io_uring_enter. The loop's wake eventfd
/// is read by a ring operation (no separate drain). Loop thread only.
class RingPoller {
  public:
    /// Sets up the ring and the provided buffers; throws std::system_error when the kernel refuses.
    /// `wake_fd` (a blocking eventfd) and `timers` must outlive the poller.
    RingPoller(int wake_fd, TimerWheel& timers);
    ~RingPoller();
    RingPoller(const RingPoller&) = delete;
    RingPoller& operator=(const RingPoller&) = delete;

    /// Ok when an io_uring with the features this backend uses can be set up here, else why not.
    static base::Status probe();

    [[nodiscard]] base::Status add(int fd, std::uint32_t events, IoHandler* handler);
    base::Result<StreamIo*> add_stream(int fd, std::uint32_t events, IoHandler* handler);
    [[nodiscard]] base::Status modify(int fd, std::uint32_t events);
    /// Cancels the fd's operations (a send already taken is still delivered, for at most kSendGraceNanos,
    /// so a response written just before a close is not lost). The caller closes the fd afterwards.
    [[nodiscard]] base::Status remove(int fd, base::MonoNanos now);
    std::uint32_t registered_events(int fd) const;

    /// Re-deliveries are pending: the next wait must not block.
    bool has_ready() const { return !ready_.empty(); }
    /// Submits every queued operation and waits up to `timeout_ms` (-1: no limit; 0: no waiting) for one
    /// completion. One system call.
    void wait(int timeout_ms);
    /// Calls handlers for re-deliveries and completions; returns the number of handler calls.
    std::size_t dispatch();

    /// How long a removed socket's last send may wait for the client before it is cancelled.
    static constexpr std::int64_t kSendGraceNanos = 10 * base::kNanosPerSecond;

  private:
    friend class RingSocket;

    struct Completion {
        std::uint64_t data;
        std::int32_t res;
        std::uint32_t flags;
    };

    RingSocket* find(int fd) const;
    io_uring_sqe* next_sqe();
    void arm_poll(RingSocket& s);
    void sync_poll(RingSocket& s);
    void arm_recv(RingSocket& s);
    // Submits every prepared SQE; with `wait`, waits up to timeout_ms (-1: no limit) for one completion.
    void submit(bool wait, int timeout_ms);
    // Prepares the send of s.send_buf_ from s.send_off_; it goes to the kernel with the next submit.
    void prep_send(RingSocket& s);
    // Makes the prepared, not yet submitted send cover what s.send_buf_ holds now; false once submitted.
    bool extend_send(RingSocket& s);
    void cancel(RingSocket& s, std::uint64_t tag);
    void mark_ready(RingSocket& s, std::uint32_t events);
    void arm_wake();
    std::size_t on_completion(const Completion& c);
    std::size_t on_poll(RingSocket& s, std::int32_t res);
    std::size_t on_recv(RingSocket& s, std::int32_t res, std::uint32_t flags);
    std::size_t on_send(RingSocket& s, std::int32_t res);
    std::size_t deliver(RingSocket& s, std::uint32_t events);
    void after_delivery(RingSocket& s);
    void reap();

    io_uring ring_{};
    std::unique_ptr<BufferRing> buffers_;
    int wake_fd_;
    std::uint64_t wake_value_ = 0;
    TimerWheel& timers_;
    std::vector<std::unique_ptr<RingSocket>> registrations_;  // indexed by fd
    std::vector<std::unique_ptr<RingSocket>> removed_;        // waiting for their operations to complete
    std::vector<RingSocket*> ready_;                          // level-triggered re-deliveries
    std::vector<RingSocket*> ready_running_;
    std::vector<RingSocket*> starved_;  // receives that found no provided buffer
    std::uint64_t submits_ = 0;         // submit() calls so far
    bool multishot_ = true;             // receives are multishot (false once a kernel refused one)
};

}  // namespace slipstream::net::uring
