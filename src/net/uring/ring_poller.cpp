// RingPoller: io_uring setup, operation submission, completion dispatch and level-triggered re-delivery.
#include "net/uring/ring_poller.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace slipstream::net::uring {
namespace {

constexpr unsigned kEntries = 1024;  // SQ size; the CQ gets four times as many
constexpr std::uint16_t kBufferGroup = 0;
constexpr std::uint32_t kBufferCount = 128;  // a power of two
constexpr std::uint32_t kBufferSize = 16 * 1024;
constexpr std::size_t kBatch = 256;  // completions handled per iteration
constexpr std::size_t kKeepSendCapacity = 64 * 1024;

// user_data: a RingSocket address (8-byte aligned) with the operation in the low bits.
constexpr std::uint64_t kTagMask = 7;
constexpr std::uint64_t kPollTag = 1;
constexpr std::uint64_t kRecvTag = 2;
constexpr std::uint64_t kSendTag = 3;
constexpr std::uint64_t kWakeData = 4;  // no socket: the loop's eventfd read
constexpr std::uint32_t kPollable = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLPRI | EPOLLERR | EPOLLHUP;

std::uint64_t data_of(RingSocket& s, std::uint64_t tag) {
    return reinterpret_cast<std::uintptr_t>(&s) | tag;
}

int init_ring(io_uring& ring, unsigned entries, bool cq_sized) {
    io_uring_params p{};
    // Task work runs when the loop enters the kernel anyway: no interrupts to the busy loop thread. One
    // failing SQE (a closed fd) must not hold back the rest of the batch.
    p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SUBMIT_ALL;
    if (cq_sized) {
        p.flags |= IORING_SETUP_CQSIZE;
        p.cq_entries = entries * 4;
    }
    int rc = io_uring_queue_init_params(entries, &ring, &p);
    if (rc == -EINVAL) {  // kernels before 5.19 know neither flag
        p = io_uring_params{};
        rc = io_uring_queue_init_params(entries, &ring, &p);
    }
    return rc;
}

}  // namespace

base::Status RingPoller::probe() {
    io_uring ring{};
    const int rc = init_ring(ring, 8, false);
    if (rc < 0) return base::Status::unavailable(std::string("io_uring_setup failed: ") + std::strerror(-rc));
    base::Status status = base::Status::ok();
    try {
        BufferRing buffers(ring, kBufferGroup, 1, 64);  // provided-buffer rings need Linux 5.19
        io_uring_queue_exit(&ring);
        return status;
    } catch (const std::system_error& e) {
        status = base::Status::unavailable(std::string("io_uring provided buffers unsupported: ") + e.what());
    }
    io_uring_queue_exit(&ring);
    return status;
}

RingPoller::RingPoller(int wake_fd, TimerWheel& timers) : wake_fd_(wake_fd), timers_(timers) {
    const int rc = init_ring(ring_, kEntries, true);
    if (rc < 0) throw std::system_error(-rc, std::generic_category(), "io_uring_queue_init");
    try {
        buffers_ = std::make_unique<BufferRing>(ring_, kBufferGroup, kBufferCount, kBufferSize);
    } catch (...) {
        io_uring_queue_exit(&ring_);
        throw;
    }
    arm_wake();
}

RingPoller::~RingPoller() {
    // Exiting the ring cancels every operation; buffers and sockets are freed after it (member order).
    io_uring_queue_exit(&ring_);
}

RingSocket* RingPoller::find(int fd) const {
    const auto index = static_cast<std::size_t>(fd);
    if (fd < 0 || index >= registrations_.size()) return nullptr;
    return registrations_[index].get();
}

base::Status RingPoller::add(int fd, std::uint32_t events, IoHandler* handler) {
    if (find(fd) != nullptr) return base::Status::already_exists("ring add: fd " + std::to_string(fd));
    // epoll_ctl would refuse a closed fd at once; a poll would only fail at the next wait.
    if (::fcntl(fd, F_GETFD) < 0) return base::Status::from_errno("ring add", errno);
    const auto index = static_cast<std::size_t>(fd);
    if (index >= registrations_.size()) registrations_.resize(index + index / 2 + 64);
    registrations_[index] = std::make_unique<RingSocket>(*this, fd, RingSocket::Kind::kPoll, events, handler);
    sync_poll(*registrations_[index]);
    return base::Status::ok();
}

base::Result<StreamIo*> RingPoller::add_stream(int fd, std::uint32_t events, IoHandler* handler) {
    if (fd < 0) return base::Status::invalid_argument("ring add: negative fd");
    if (find(fd) != nullptr) return base::Status::already_exists("ring add: fd " + std::to_string(fd));
    const auto index = static_cast<std::size_t>(fd);
    if (index >= registrations_.size()) registrations_.resize(index + index / 2 + 64);
    registrations_[index] = std::make_unique<RingSocket>(*this, fd, RingSocket::Kind::kStream, events, handler);
    RingSocket& s = *registrations_[index];
    if (s.wants_read()) arm_recv(s);
    if (events & EPOLLOUT) mark_ready(s, EPOLLOUT);
    return static_cast<StreamIo*>(&s);
}

base::Status RingPoller::modify(int fd, std::uint32_t events) {
    RingSocket* s = find(fd);
    if (s == nullptr) return base::Status::not_found("ring modify: fd " + std::to_string(fd));
    const std::uint32_t old = s->events_;
    if (old == events) return base::Status::ok();
    s->events_ = events;
    if (s->kind_ == RingSocket::Kind::kPoll) {
        sync_poll(*s);
        return base::Status::ok();
    }
    // Level-triggered: turning interest on reports what is already there.
    if (s->wants_read() && (old & (EPOLLIN | EPOLLRDHUP)) == 0) {
        if (s->has_input()) {
            mark_ready(*s, EPOLLIN);
        } else {
            arm_recv(*s);
        }
    }
    if ((events & EPOLLOUT) && !(old & EPOLLOUT) && !s->sending()) mark_ready(*s, EPOLLOUT);
    return base::Status::ok();
}

base::Status RingPoller::remove(int fd, base::MonoNanos now) {
    if (find(fd) == nullptr) return base::Status::not_found("ring remove: fd " + std::to_string(fd));
    std::unique_ptr<RingSocket> s = std::move(registrations_[static_cast<std::size_t>(fd)]);
    s->removed_ = true;
    std::erase(ready_, s.get());
    std::erase(starved_, s.get());
    if (s->poll_armed_ && !s->poll_cancelling_) cancel(*s, kPollTag);
    if (s->recv_armed_) cancel(*s, kRecvTag);
    s->release_buffer();
    s->spill_.clear();
    if (s->send_armed_ && s->send_sqe_submits_ == submits_) {
        // Bytes the handler counts as written: submit them now, so the kernel holds the socket before the
        // caller closes the fd (one extra system call, on this path only).
        submit(false, 0);
    }
    if (s->send_armed_) {
        RingSocket* raw = s.get();
        raw->send_grace_.set_callback([this, raw] {
            if (raw->send_armed_) cancel(*raw, kSendTag);
        });
        timers_.schedule(raw->send_grace_, now + kSendGraceNanos);
    }
    removed_.push_back(std::move(s));
    return base::Status::ok();
}

std::uint32_t RingPoller::registered_events(int fd) const {
    const RingSocket* s = find(fd);
    return s == nullptr ? 0 : s->events_;
}

// ---- submission ----

io_uring_sqe* RingPoller::next_sqe() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe != nullptr) return sqe;
    submit(false, 0);  // the SQ is full: hand it over early
    sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) throw std::system_error(EBUSY, std::generic_category(), "io_uring_get_sqe");
    return sqe;
}

void RingPoller::arm_wake() {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_read(sqe, wake_fd_, &wake_value_, sizeof wake_value_, 0);
    io_uring_sqe_set_data64(sqe, kWakeData);
}

void RingPoller::arm_poll(RingSocket& s) {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_poll_add(sqe, s.fd_, s.events_ & kPollable);
    io_uring_sqe_set_data64(sqe, data_of(s, kPollTag));
    s.poll_armed_ = true;
    s.poll_mask_ = s.events_ & kPollable;
    s.poll_cancelling_ = false;
    ++s.in_flight_;
}

void RingPoller::sync_poll(RingSocket& s) {
    const std::uint32_t want = s.events_ & kPollable;
    if (s.poll_armed_) {
        if (s.poll_mask_ == want || s.poll_cancelling_) return;  // a cancelled poll re-arms on completion
        if (want == 0) {
            cancel(s, kPollTag);
            s.poll_cancelling_ = true;
            return;
        }
        // Updated in place: the kernel checks the new events at once (an fd made writable reports now).
        io_uring_sqe* sqe = next_sqe();
        io_uring_prep_poll_update(sqe, data_of(s, kPollTag), 0, want, IORING_POLL_UPDATE_EVENTS);
        io_uring_sqe_set_data64(sqe, 0);  // its own completion is ignored (-ENOENT: the poll already fired)
        s.poll_mask_ = want;
        return;
    }
    if (want != 0) arm_poll(s);
}

void RingPoller::arm_recv(RingSocket& s) {
    if (s.recv_armed_ || s.removed_) return;
    io_uring_sqe* sqe = next_sqe();
    if (multishot_) {
        // Stays armed: every arrival completes with a buffer and IORING_CQE_F_MORE, no SQE per receive.
        io_uring_prep_recv_multishot(sqe, s.fd_, nullptr, 0, 0);
    } else {
        io_uring_prep_recv(sqe, s.fd_, nullptr, buffers_->buffer_size(), 0);
    }
    // Usually armed just after the handler took the last bytes: wait for readiness instead of trying first.
    sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = buffers_->group();
    io_uring_sqe_set_data64(sqe, data_of(s, kRecvTag));
    s.recv_armed_ = true;
    s.recv_multishot_ = multishot_;
    ++s.in_flight_;
}

void RingPoller::submit(bool wait, int timeout_ms) {
    ++submits_;  // SQEs prepared so far now belong to the kernel: a queued send can no longer be extended
    if (!wait) {
        // Also runs pending task work, so completions of what was just submitted (and polls that fired
        // meanwhile) are in the CQ when dispatch() looks: a non-blocking iteration sees them at once.
        io_uring_submit_and_get_events(&ring_);
    } else if (timeout_ms < 0) {
        io_uring_submit_and_wait(&ring_, 1);
    } else {
        io_uring_cqe* cqe = nullptr;
        __kernel_timespec ts{};
        ts.tv_sec = timeout_ms / 1000;
        ts.tv_nsec = static_cast<long long>(timeout_ms % 1000) * 1'000'000;
        io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);  // -ETIME, -EINTR: an early return
    }
}

void RingPoller::prep_send(RingSocket& s) {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_send(sqe, s.fd_, s.send_buf_.data() + s.send_off_, s.send_buf_.size() - s.send_off_,
                       MSG_NOSIGNAL | MSG_WAITALL);
    io_uring_sqe_set_data64(sqe, data_of(s, kSendTag));
    s.send_armed_ = true;
    s.send_sqe_ = sqe;
    s.send_sqe_submits_ = submits_;
    ++s.in_flight_;
}

bool RingPoller::extend_send(RingSocket& s) {
    if (s.send_sqe_submits_ != submits_) return false;  // submitted: the kernel holds the old address and length
    s.send_sqe_->addr = reinterpret_cast<std::uintptr_t>(s.send_buf_.data() + s.send_off_);
    s.send_sqe_->len = static_cast<std::uint32_t>(s.send_buf_.size() - s.send_off_);
    return true;
}

void RingPoller::cancel(RingSocket& s, std::uint64_t tag) {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_cancel64(sqe, data_of(s, tag), 0);
    io_uring_sqe_set_data64(sqe, 0);  // the cancel's own completion is ignored
}

void RingPoller::mark_ready(RingSocket& s, std::uint32_t events) {
    s.ready_events_ |= events;
    if (s.queued_ready_) return;
    s.queued_ready_ = true;
    ready_.push_back(&s);
}

void RingPoller::wait(int timeout_ms) {
    for (RingSocket* s : starved_) {
        if (!s->has_input() && s->wants_read()) arm_recv(*s);
    }
    starved_.clear();
    submit(timeout_ms != 0 && io_uring_cq_ready(&ring_) == 0, timeout_ms);
}

// ---- completions ----

std::size_t RingPoller::dispatch() {
    std::size_t handled = 0;
    if (!ready_.empty()) {
        ready_running_.swap(ready_);
        for (RingSocket* s : ready_running_) {
            s->queued_ready_ = false;
            const std::uint32_t ev = s->ready_events_;
            s->ready_events_ = 0;
            if (s->removed_) continue;  // removed by an earlier handler of this list
            std::uint32_t deliver_ev = 0;
            if ((ev & EPOLLIN) && s->has_input()) {
                deliver_ev |= EPOLLIN | (s->eof_ ? EPOLLRDHUP : 0u) | (s->error_ != 0 ? EPOLLERR : 0u);
            }
            if ((ev & EPOLLOUT) && !s->sending()) deliver_ev |= EPOLLOUT;
            handled += deliver(*s, deliver_ev);
            after_delivery(*s);
        }
        ready_running_.clear();
    }
    // The completions present now, at most kBatch, each copied and marked seen before its handler runs (a
    // handler's submit may post more: those wait for the next iteration).
    unsigned head = *ring_.cq.khead;
    const unsigned tail = io_uring_smp_load_acquire(ring_.cq.ktail);
    const unsigned end = tail - head > kBatch ? head + static_cast<unsigned>(kBatch) : tail;
    while (head != end) {
        const io_uring_cqe& cqe = ring_.cq.cqes[head & ring_.cq.ring_mask];
        const Completion c{cqe.user_data, cqe.res, cqe.flags};
        io_uring_smp_store_release(ring_.cq.khead, ++head);
        handled += on_completion(c);
    }
    reap();
    return handled;
}

std::size_t RingPoller::on_completion(const Completion& c) {
    if (c.data == 0) return 0;
    if (c.data == kWakeData) {
        arm_wake();  // the read consumed the eventfd counter: nothing to drain
        return 0;
    }
    RingSocket& s = *reinterpret_cast<RingSocket*>(c.data & ~kTagMask);
    if (!(c.flags & IORING_CQE_F_MORE)) --s.in_flight_;  // a multishot receive goes on while MORE is set
    switch (c.data & kTagMask) {
        case kPollTag:
            return on_poll(s, c.res);
        case kRecvTag:
            return on_recv(s, c.res, c.flags);
        case kSendTag:
            return on_send(s, c.res);
        default:
            return 0;
    }
}

std::size_t RingPoller::on_poll(RingSocket& s, std::int32_t res) {
    s.poll_armed_ = false;
    s.poll_cancelling_ = false;
    if (s.removed_) return 0;
    const std::uint32_t events = res >= 0 ? static_cast<std::uint32_t>(res) : (res == -ECANCELED ? 0u : EPOLLERR);
    const std::size_t n = deliver(s, events);
    if (!s.removed_) sync_poll(s);  // one-shot: re-armed with the current events (level-triggered)
    return n;
}

std::size_t RingPoller::on_recv(RingSocket& s, std::int32_t res, std::uint32_t flags) {
    const bool more = (flags & IORING_CQE_F_MORE) != 0;
    if (!more) s.recv_armed_ = s.recv_cancelling_ = false;
    if (res == -EINVAL && s.recv_multishot_ && !more) {
        multishot_ = false;  // a kernel before 6.0: single-shot receives from now on
        if (!s.removed_ && s.wants_read() && !s.has_input()) arm_recv(s);
        return 0;
    }
    if (res > 0) {
        if (!(flags & IORING_CQE_F_BUFFER)) {
            res = -EIO;  // cannot happen with IOSQE_BUFFER_SELECT
        } else {
            const auto id = static_cast<std::uint16_t>(flags >> IORING_CQE_BUFFER_SHIFT);
            if (s.removed_) {
                buffers_->give_back(id);
                return 0;
            }
            s.take_buffer(id, static_cast<std::uint32_t>(res));
        }
    }
    if (s.removed_) return 0;
    if (res == -ECANCELED) {
        // Stopped because unread bytes reached the cap: resumes once the handler has taken them.
        if (s.wants_read() && !s.has_input()) arm_recv(s);
        return 0;
    }
    if (res == -ENOBUFS) {
        starved_.push_back(&s);  // buffers come back during this iteration; receive again at the next wait
        return 0;
    }
    if (res == 0) s.eof_ = true;
    if (res < 0) s.error_ = -res;
    const std::uint32_t ev = EPOLLIN | (s.eof_ ? EPOLLRDHUP : 0u) | (s.error_ != 0 ? EPOLLERR : 0u);
    const std::size_t n = deliver(s, ev);
    // Bytes the handler left (reading paused, or a smaller buffer) move out of the shared buffer.
    if (s.removed_) {
        s.release_buffer();
        return n;
    }
    s.spill();
    // A multishot receive keeps filling the spill while the handler does not read: past the cap it is
    // cancelled, and the socket's own buffer (TCP flow control) holds the rest.
    if (s.recv_armed_ && s.recv_multishot_ && s.unread_spill() > RingSocket::kSpillCap && !s.recv_cancelling_) {
        cancel(s, kRecvTag);
        s.recv_cancelling_ = true;
    }
    after_delivery(s);
    return n;
}

std::size_t RingPoller::on_send(RingSocket& s, std::int32_t res) {
    s.send_armed_ = false;
    if (res > 0) s.send_off_ += static_cast<std::size_t>(res);
    const bool done = s.send_off_ >= s.send_buf_.size();
    if (s.removed_) return 0;  // the fd is closed: a remainder cannot be sent any more
    if (res < 0) {
        s.error_ = res == -ECANCELED ? ECONNRESET : -res;
        s.send_buf_.clear();
        s.send_off_ = 0;
        const std::size_t n = deliver(s, EPOLLERR | EPOLLOUT | EPOLLIN);
        after_delivery(s);
        return n;
    }
    if (!done) {
        prep_send(s);  // a partial send (MSG_WAITALL makes it rare): the rest goes at the next wait
        return 0;
    }
    if (s.send_buf_.capacity() > kKeepSendCapacity) {
        std::string().swap(s.send_buf_);
    } else {
        s.send_buf_.clear();
    }
    s.send_off_ = 0;
    if (s.shutdown_after_send_) {
        s.shutdown_after_send_ = false;
        (void)::shutdown(s.fd_, SHUT_WR);
    }
    if (!(s.events_ & EPOLLOUT)) return 0;
    const std::size_t n = deliver(s, EPOLLOUT);
    after_delivery(s);
    return n;
}

std::size_t RingPoller::deliver(RingSocket& s, std::uint32_t events) {
    const std::uint32_t ev = events & (s.events_ | EPOLLERR | EPOLLHUP);
    if (ev == 0) return 0;
    s.handler_->on_io(ev);
    return 1;
}

void RingPoller::after_delivery(RingSocket& s) {
    // Level-triggered: input the handler did not take is reported again at the next iteration.
    if (!s.removed_ && s.kind_ == RingSocket::Kind::kStream && s.wants_read() && s.has_input()) {
        mark_ready(s, EPOLLIN);
    }
}

void RingPoller::reap() {
    if (removed_.empty()) return;
    std::erase_if(removed_, [](const std::unique_ptr<RingSocket>& s) { return s->in_flight_ == 0; });
}

}  // namespace slipstream::net::uring
