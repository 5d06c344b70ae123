// RingSocket: one fd registered with the io_uring backend: a readiness poll, or a stream with its own I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "base/result.h"
#include "base/status.h"
#include "net/io_handler.h"
#include "net/stream_io.h"
#include "net/timer.h"
#include "net/uring/buffer_ring.h"

namespace slipstream::net::uring {

class RingPoller;

/// A registration of the ring backend, owned by its RingPoller. A kPoll registration emulates epoll's
/// level-triggered readiness with a one-shot IORING_OP_POLL_ADD re-armed after each delivery. A kStream
/// registration receives with IORING_OP_RECV into the poller's provided buffers and sends its own copy of
/// the bytes write() took, submitted at the next wait (MSG_WAITALL: the kernel finishes a partial send). The
/// object outlives remove() until every operation in flight has completed, so the kernel never touches freed
/// memory. Loop thread only.
class RingSocket final : public StreamIo {
  public:
    enum class Kind : std::uint8_t { kPoll, kStream };

    RingSocket(RingPoller& poller, int fd, Kind kind, std::uint32_t events, IoHandler* handler);

    base::Result<std::size_t> read(std::span<char> buffer) override;
    base::Result<std::size_t> write(std::span<const iovec> pieces) override;
    [[nodiscard]] base::Status shutdown_write() override;

    /// Most bytes waiting in the send buffer; write() takes no more until they are sent.
    static constexpr std::size_t kSendCap = 256 * 1024;
    /// Received bytes the handler has not read past which the multishot receive is cancelled (re-armed when
    /// they are read): with at most one more provided buffer, the most a connection holds here.
    static constexpr std::size_t kSpillCap = 64 * 1024;

  private:
    friend class RingPoller;

    bool wants_read() const { return (events_ & (kIn | kRdHup)) != 0; }
    // Received bytes, end of stream or an error wait to be read.
    bool has_input() const { return buffer_id_ >= 0 || spill_off_ < spill_.size() || eof_ || error_ != 0; }
    bool sending() const { return send_armed_; }
    // Received bytes in provided buffer `id`: held for read(), or appended to the spill when earlier bytes
    // are still unread there (order is kept).
    void take_buffer(std::uint16_t id, std::uint32_t len) {
        if (spill_off_ < spill_.size()) {
            append_to_spill(id, len);
            return;
        }
        buffer_id_ = id;
        buffer_len_ = len;
        buffer_off_ = 0;
    }
    void append_to_spill(std::uint16_t id, std::uint32_t len);
    // Copies the unread rest of the held provided buffer into spill_ and gives the buffer back.
    void spill() {
        if (buffer_id_ >= 0) spill_held();
    }
    void spill_held();
    std::size_t unread_spill() const { return spill_.size() - spill_off_; }
    void release_buffer() {
        if (buffer_id_ < 0) return;
        buffers_.give_back(static_cast<std::uint16_t>(buffer_id_));
        buffer_id_ = -1;
        buffer_len_ = 0;
        buffer_off_ = 0;
    }
    static std::size_t take(std::span<char> out, const char* from, std::size_t available) {
        const std::size_t n = out.size() < available ? out.size() : available;
        std::memcpy(out.data(), from, n);
        return n;
    }

    static constexpr std::uint32_t kIn = 0x001;      // EPOLLIN
    static constexpr std::uint32_t kRdHup = 0x2000;  // EPOLLRDHUP

    RingPoller& poller_;
    BufferRing& buffers_;  // the poller's provided buffers
    int fd_;
    Kind kind_;
    std::uint32_t events_;
    IoHandler* handler_;
    bool removed_ = false;
    bool queued_ready_ = false;  // in the poller's re-delivery list
    std::uint32_t ready_events_ = 0;
    std::uint32_t in_flight_ = 0;  // operations the kernel holds (the object lives while > 0)

    // kPoll
    bool poll_armed_ = false;
    std::uint32_t poll_mask_ = 0;
    bool poll_cancelling_ = false;

    // kStream: receiving
    bool recv_armed_ = false;
    bool recv_multishot_ = false;   // the armed receive is multishot
    bool recv_cancelling_ = false;  // it was cancelled at kSpillCap
    int buffer_id_ = -1;            // the provided buffer holding unread bytes (only while its completion is handled)
    std::uint32_t buffer_len_ = 0;
    std::uint32_t buffer_off_ = 0;
    std::string spill_;  // unread bytes the handler left (the buffer went back to the ring)
    std::size_t spill_off_ = 0;
    bool eof_ = false;
    int error_ = 0;  // errno of a failed receive or send

    // kStream: sending
    std::string send_buf_;
    std::size_t send_off_ = 0;
    bool send_armed_ = false;             // prepared (submitted at the next wait) and not completed
    io_uring_sqe* send_sqe_ = nullptr;    // the armed send's SQE, extended by write() until it is submitted
    std::uint64_t send_sqe_submits_ = 0;  // the poller's submit count when send_sqe_ was prepared
    bool shutdown_after_send_ = false;
    Timer send_grace_;  // after remove(): cancels a send the client does not take
};

}  // namespace slipstream::net::uring
