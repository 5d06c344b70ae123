// RingSocket: the stream side of the io_uring backend: reads from received buffers, writes into the send buffer.
#include "net/uring/ring_socket.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/uring/ring_poller.h"

namespace slipstream::net::uring {

RingSocket::RingSocket(RingPoller& poller, int fd, Kind kind, std::uint32_t events, IoHandler* handler)
    : poller_(poller), buffers_(*poller.buffers_), fd_(fd), kind_(kind), events_(events), handler_(handler) {}

base::Result<std::size_t> RingSocket::read(std::span<char> buffer) {
    if (buffer.empty()) return std::size_t{0};
    std::size_t n = 0;
    if (buffer_id_ >= 0) {
        const auto id = static_cast<std::uint16_t>(buffer_id_);
        n = take(buffer, buffers_.buffer(id).data() + buffer_off_, buffer_len_ - buffer_off_);
        buffer_off_ += static_cast<std::uint32_t>(n);
        if (buffer_off_ == buffer_len_) release_buffer();
    } else if (spill_off_ < spill_.size()) {
        n = take(buffer, spill_.data() + spill_off_, spill_.size() - spill_off_);
        spill_off_ += n;
        if (spill_off_ == spill_.size()) {
            spill_.clear();
            spill_off_ = 0;
        }
    }
    // Receive the next bytes while the handler works on these: they arrive with the next wait.
    if (!has_input() && !recv_armed_ && wants_read() && !removed_) poller_.arm_recv(*this);
    if (n > 0) return n;
    if (error_ != 0) return base::Status::from_errno("recv", error_);
    if (eof_) return std::size_t{0};
    return base::Status::unavailable({});
}

base::Result<std::size_t> RingSocket::write(std::span<const iovec> pieces) {
    if (error_ != 0) return base::Status::from_errno("send", error_);
    // An armed send takes more bytes only while its SQE waits for the next submit.
    if (removed_ || (send_armed_ && send_sqe_submits_ != poller_.submits_)) return base::Status::unavailable({});
    std::size_t taken = 0;
    for (const iovec& p : pieces) {
        const std::size_t room = kSendCap - std::min(kSendCap, send_buf_.size());
        const std::size_t n = std::min(room, p.iov_len);
        send_buf_.append(static_cast<const char*>(p.iov_base), n);
        taken += n;
        if (n < p.iov_len) break;
    }
    if (taken == 0) return base::Status::unavailable({});
    // The send goes with the next wait's submit: the SQE is prepared now, and extended by later writes.
    if (!send_armed_) {
        poller_.prep_send(*this);
    } else {
        poller_.extend_send(*this);
    }
    return taken;
}

base::Status RingSocket::shutdown_write() {
    if (sending()) {
        shutdown_after_send_ = true;  // after the bytes already taken
        return base::Status::ok();
    }
    if (::shutdown(fd_, SHUT_WR) != 0) return base::Status::from_errno("shutdown", errno);
    return base::Status::ok();
}

void RingSocket::append_to_spill(std::uint16_t id, std::uint32_t len) {
    spill_.append(buffers_.buffer(id).data(), len);
    buffers_.give_back(id);
}

void RingSocket::spill_held() {
    const auto id = static_cast<std::uint16_t>(buffer_id_);
    spill_.append(buffers_.buffer(id).data() + buffer_off_, buffer_len_ - buffer_off_);
    release_buffer();
}

}  // namespace slipstream::net::uring
