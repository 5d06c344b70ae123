// EventLoop: epoll dispatch (or the io_uring backend), the eventfd wake protocol, task queues, timer integration.
#include "net/event_loop.h"

#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

#include "base/assert.h"
#include "net/raw_syscall.h"

#if SLIPSTREAM_HAVE_URING
#include "net/uring/ring_poller.h"
#else
namespace slipstream::net::uring {
// Built without liburing: no loop ever holds a backend (the constructor refuses EventLoopOptions::io_uring).
class RingPoller {};
}  // namespace slipstream::net::uring
#endif

namespace slipstream::net {

EventLoop::EventLoop(const base::Clock& clock, EventLoopOptions options)
    : clock_(clock), now_(clock.now()), owner_(std::this_thread::get_id()), timers_(now_, options.timers) {
    if (options.io_uring) {
#if SLIPSTREAM_HAVE_URING
        // A blocking eventfd: the ring's read of it waits instead of failing with EAGAIN.
        wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
        if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
        try {
            ring_ = std::make_unique<uring::RingPoller>(wake_fd_, timers_);
        } catch (...) {
            ::close(wake_fd_);
            throw;
        }
        return;
#else
        throw std::runtime_error("io_uring was requested, but this build has no io_uring support (liburing missing)");
#endif
    }
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
        const int err = errno;
        ::close(epoll_fd_);
        throw std::system_error(err, std::generic_category(), "eventfd");
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &wake_registration_;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) {
        const int err = errno;
        ::close(wake_fd_);
        ::close(epoll_fd_);
        throw std::system_error(err, std::generic_category(), "epoll_ctl(eventfd)");
    }
    events_.resize(static_cast<std::size_t>(options.max_events > 0 ? options.max_events : 1));
}

EventLoop::~EventLoop() {
    ring_.reset();
    ::close(wake_fd_);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

base::Status EventLoop::io_uring_support() {
#if SLIPSTREAM_HAVE_URING
    return uring::RingPoller::probe();
#else
    return base::Status::unavailable("this build has no io_uring support (liburing was not found at build time)");
#endif
}

base::Result<StreamIo*> EventLoop::add_stream(int fd, std::uint32_t events, IoHandler* handler) {
    SLIPSTREAM_ASSERT(is_in_loop_thread());
    SLIPSTREAM_ASSERT(handler != nullptr);
#if SLIPSTREAM_HAVE_URING
    if (ring_) return ring_->add_stream(fd, events, handler);
#endif
    (void)fd;
    (void)events;
    return base::Status::invalid_argument("add_stream needs an io_uring loop");
}

EventLoop::Registration* EventLoop::find(int fd) const {
    if (fd < 0) return nullptr;
    const auto chunk = static_cast<std::size_t>(fd) >> kChunkBits;
    if (chunk >= registrations_.size() || !registrations_[chunk]) return nullptr;
    return &registrations_[chunk][static_cast<std::size_t>(fd) & ((std::size_t{1} << kChunkBits) - 1)];
}

void EventLoop::drop_fetched(const Registration* reg) {
    for (std::size_t i = delivering_ + 1; i < fetched_; ++i) {
        if (events_[i].data.ptr == reg) events_[i].data.ptr = &dropped_;
    }
}

base::Status EventLoop::add(int fd, std::uint32_t events, IoHandler* handler) {
    SLIPSTREAM_ASSERT(is_in_loop_thread());
    SLIPSTREAM_ASSERT(handler != nullptr && fd >= 0);
#if SLIPSTREAM_HAVE_URING
    if (ring_) return ring_->add(fd, events, handler);
#endif
    const auto chunk = static_cast<std::size_t>(fd) >> kChunkBits;
    if (chunk >= registrations_.size()) registrations_.resize(chunk + 1);
    if (!registrations_[chunk]) registrations_[chunk] = std::make_unique<Registration[]>(std::size_t{1} << kChunkBits);
    Registration& reg = *find(fd);
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = &reg;
    // The kernel decides whether fd is registered: our table can be stale if a caller closed an fd without
    // remove() (the kernel then dropped the registration and the number was reused).
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        if (errno == EEXIST) return base::Status::already_exists("epoll add: fd " + std::to_string(fd));
        return base::Status::from_errno("epoll add", errno);
    }
    SLIPSTREAM_BUG(reg.handler == nullptr);          // closed without remove(): a caller bug, repaired here
    if (reg.handler != nullptr) drop_fetched(&reg);  // events of the old registration would reach the new one
    reg = Registration{handler, events};
    return base::Status::ok();
}

base::Status EventLoop::modify(int fd, std::uint32_t events) {
    SLIPSTREAM_ASSERT(is_in_loop_thread());
#if SLIPSTREAM_HAVE_URING
    if (ring_) return ring_->modify(fd, events);
#endif
    Registration* reg = find(fd);
    if (reg == nullptr || reg->handler == nullptr)
        return base::Status::not_found("epoll modify: fd " + std::to_string(fd));
    if (reg->events == events) return base::Status::ok();
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = reg;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) return base::Status::from_errno("epoll modify", errno);
    reg->events = events;
    return base::Status::ok();
}

base::Status EventLoop::remove(int fd) {
    SLIPSTREAM_ASSERT(is_in_loop_thread());
#if SLIPSTREAM_HAVE_URING
    if (ring_) return ring_->remove(fd, now_);
#endif
    Registration* reg = find(fd);
    if (reg == nullptr || reg->handler == nullptr)
        return base::Status::not_found("epoll remove: fd " + std::to_string(fd));
    *reg = Registration{};
    drop_fetched(reg);  // a handler earlier in the batch removed this fd: its fetched event is not delivered
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr) != 0) return base::Status::from_errno("epoll remove", errno);
    return base::Status::ok();
}

std::uint32_t EventLoop::registered_events(int fd) const {
#if SLIPSTREAM_HAVE_URING
    if (ring_) return ring_->registered_events(fd);
#endif
    const Registration* reg = find(fd);
    return reg == nullptr || reg->handler == nullptr ? 0 : reg->events;
}

void EventLoop::post(Task task) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        posted_.push_back(std::move(task));
        has_tasks_.store(true, std::memory_order_seq_cst);
    }
    // Only the first poster after the loop went to sleep writes the eventfd.
    if (sleeping_.load(std::memory_order_seq_cst) && sleeping_.exchange(false, std::memory_order_seq_cst)) wake();
}

void EventLoop::stop() {
    stop_.store(true, std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_seq_cst) && sleeping_.exchange(false, std::memory_order_seq_cst)) wake();
}

void EventLoop::wake() {
    const std::uint64_t one = 1;
    ssize_t n;
    do {
        n = ::write(wake_fd_, &one, sizeof one);
    } while (n < 0 && errno == EINTR);
    // EAGAIN means the counter is saturated: the loop is already woken. Nothing else can fail here.
    wake_writes_.fetch_add(1, std::memory_order_relaxed);
}

void EventLoop::drain_wake_fd() {
    std::uint64_t value;
    ssize_t n;
    do {
        n = ::read(wake_fd_, &value, sizeof value);
    } while (n < 0 && errno == EINTR);
}

void EventLoop::defer(Task fn) {
    SLIPSTREAM_ASSERT(is_in_loop_thread());
    deferred_.push_back(std::move(fn));
}

void EventLoop::run() {
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    while (!stop_.load(std::memory_order_acquire))
        run_once(-1);
    stop_.store(false, std::memory_order_relaxed);
}

int EventLoop::compute_timeout(int max_wait_ms) const {
    // Called with sleeping_ already set, so a task posted after this check wakes the loop.
    if (has_tasks_.load(std::memory_order_seq_cst) || stop_.load(std::memory_order_seq_cst)) return 0;
    const std::optional<base::MonoNanos> wakeup = timers_.next_wakeup();
    if (!wakeup) return max_wait_ms;
    const std::int64_t delta = *wakeup - now_;
    if (delta <= 0) return 0;
    const std::int64_t ms = (delta + base::kNanosPerMilli - 1) / base::kNanosPerMilli;  // round up: never early
    const int timer_ms = ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
    return max_wait_ms < 0 ? timer_ms : std::min(max_wait_ms, timer_ms);
}

std::size_t EventLoop::run_once(int max_wait_ms) {
    if (owner_.load(std::memory_order_relaxed) != std::this_thread::get_id()) {
        owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    }
    // Wait. sleeping_ is only raised when the wait may block; a non-blocking poll needs no wake-up.
    int timeout = 0;
    bool may_block = max_wait_ms != 0 && deferred_.empty();
#if SLIPSTREAM_HAVE_URING
    if (ring_ && ring_->has_ready()) may_block = false;
#endif
    if (may_block) {
        sleeping_.store(true, std::memory_order_seq_cst);
        timeout = compute_timeout(max_wait_ms);
    }
#if SLIPSTREAM_HAVE_URING
    if (ring_) return run_ring_iteration(may_block, timeout);
#endif
    // epoll_pwait without a mask is epoll_wait, and the one name both x86_64 and aarch64 have; entered directly
    // (net/raw_syscall.h says why).
    long ready = detail::raw_syscall(SYS_epoll_pwait, epoll_fd_, reinterpret_cast<long>(events_.data()),
                                     static_cast<long>(events_.size()), timeout, 0, 0);
    if (may_block) sleeping_.store(false, std::memory_order_relaxed);
    if (ready < 0) {
        // EINTR (a signal) is an ordinary early return; EBADF/EINVAL would be our bug.
        SLIPSTREAM_CHECK(ready == -EINTR);
        ready = 0;
    }
    now_ = clock_.now();
    ++iterations_;

    std::size_t work = dispatch(static_cast<int>(ready));
    work += run_posted();
    work += timers_.advance(now_);
    work += run_deferred();
    return work;
}

#if SLIPSTREAM_HAVE_URING
std::size_t EventLoop::run_ring_iteration(bool may_block, int timeout) {
    ring_->wait(timeout);  // submits the iteration's receives and sends, then waits: one system call
    if (may_block) sleeping_.store(false, std::memory_order_relaxed);
    now_ = clock_.now();
    ++iterations_;

    std::size_t work = ring_->dispatch();
    work += run_posted();
    work += timers_.advance(now_);
    work += run_deferred();
    return work;
}
#endif

std::size_t EventLoop::dispatch(int ready) {
    std::size_t handled = 0;
    fetched_ = static_cast<std::size_t>(ready);
    for (std::size_t i = 0; i < fetched_; ++i) {
        delivering_ = i;
        const auto* reg = static_cast<const Registration*>(events_[i].data.ptr);
        if (IoHandler* handler = reg->handler; handler != nullptr) {
            handler->on_io(events_[i].events);
            ++handled;
        } else if (reg == &wake_registration_) {
            drain_wake_fd();
        }
    }
    fetched_ = 0;
    return handled;
}

std::size_t EventLoop::run_posted() {
    // Cheap check first: a post missed here is seen before the loop next blocks (see compute_timeout).
    if (!has_tasks_.load(std::memory_order_acquire)) return 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        posted_running_.swap(posted_);
        has_tasks_.store(false, std::memory_order_relaxed);
    }
    const std::size_t n = posted_running_.size();
    for (Task& task : posted_running_)
        task();
    posted_running_.clear();  // keeps capacity: no allocation in steady state
    return n;
}

std::size_t EventLoop::run_deferred() {
    if (deferred_.empty()) return 0;
    deferred_running_.swap(deferred_);
    const std::size_t n = deferred_running_.size();
    for (Task& fn : deferred_running_)
        fn();
    deferred_running_.clear();
    return n;
}

}  // namespace slipstream::net
