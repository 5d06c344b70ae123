// EventLoop: one epoll (or io_uring) instance per I/O thread, with cross-thread tasks, deferred callbacks and timers.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/status.h"
#include "net/io_handler.h"
#include "net/stream_io.h"
#include "net/task.h"
#include "net/timer_wheel.h"

namespace slipstream::net {

namespace uring {
class RingPoller;
}

struct EventLoopOptions {
    int max_events = 256;  // epoll_wait batch size
    TimerWheelOptions timers;
    /// Wait in io_uring_submit_and_wait instead of epoll_wait, and let add_stream() sockets receive and send
    /// through the ring (see uring/ring_poller.h). Needs liburing at build time; io_uring_support() says.
    bool io_uring = false;
};

/// An epoll event loop owned by one thread (the "loop thread": the thread that calls run()/run_once(); before
/// the first call, the constructing thread). Methods marked "loop thread" must be called only there; the
/// others (post, stop, is_in_loop_thread, idle, wake_writes) are safe from any thread.
///
/// Readiness contract (level-triggered by default):
///  - Register with EPOLLIN (+ EPOLLRDHUP if wanted). A reader that got fewer bytes than it asked for may
///    stop reading: the fd reports readiness again while unread data remains, so the EAGAIN read is saved.
///  - Writers write directly (no readiness needed). Only when a write would block, arm EPOLLOUT with
///    modify(); disarm it when the output has drained, or the loop spins on a writable fd.
///  - EPOLLET may be passed; the handler must then read/write until EAGAIN.
///  - EPOLLERR and EPOLLHUP are reported even when not asked for.
///  - Readiness may be spurious (a read can still say "would block"); handlers must cope.
///  - After remove(fd) returns, the fd's handler is never called for that registration again, even for an
///    event already fetched in the current batch; so remove(), then close(fd), then destroy the handler.
///
/// One iteration (run_once): wait in epoll_wait (timeout from the next timer, 0 if work is pending) ->
/// refresh now() from the clock (the only clock read) -> dispatch I/O events in kernel order -> run posted
/// tasks in FIFO order -> fire due timers -> run deferred callbacks. Deferred callbacks therefore see all of
/// an iteration's reads and posted results: the server flushes each connection with output once, there
/// (how pipelined responses become one send).
class EventLoop {
  public:
    /// Creates the epoll instance (or the io_uring) and the wake eventfd. Throws std::system_error when the
    /// kernel refuses, std::runtime_error when io_uring was asked for but is not built in (control plane).
    /// `clock` must outlive the loop.
    explicit EventLoop(const base::Clock& clock, EventLoopOptions options = {});
    /// Closes the loop's own fds. Tasks still queued are destroyed without running. Not thread-safe: no
    /// other thread may be using the loop.
    ~EventLoop();
    EventLoop(const EventLoop&) = delete;
    EventLoop& operator=(const EventLoop&) = delete;

    // --- fds (loop thread) ---

    /// Registers `fd` for `events` (EPOLLIN, EPOLLOUT, EPOLLRDHUP, EPOLLET, ...). `handler` must stay alive
    /// until remove(fd). Errors: kAlreadyExists if fd is registered, kIoError if epoll_ctl fails.
    /// Closing a registered fd without remove() is a caller bug (SLIPSTREAM_BUG when its number is added
    /// again; the stale entry is replaced).
    [[nodiscard]] base::Status add(int fd, std::uint32_t events, IoHandler* handler);
    /// Changes the events of a registered fd; no syscall when they are unchanged.
    /// Errors: kNotFound if fd is not registered, kIoError if epoll_ctl fails.
    [[nodiscard]] base::Status modify(int fd, std::uint32_t events);
    /// Unregisters `fd` (before closing it). Pending events of this registration are dropped.
    /// Errors: kNotFound if fd is not registered, kIoError if epoll_ctl fails (the fd is forgotten anyway).
    [[nodiscard]] base::Status remove(int fd);
    /// The events an fd is registered with, or 0 when it is not registered.
    std::uint32_t registered_events(int fd) const;
    /// io_uring loops only: registers a connected socket whose reads and writes the loop performs (StreamIo,
    /// valid until remove(fd)); `handler` hears emulated level-triggered readiness. modify/remove as for
    /// add(). Errors: kAlreadyExists; kInvalidArgument on an epoll loop (use add() and the socket calls).
    base::Result<StreamIo*> add_stream(int fd, std::uint32_t events, IoHandler* handler);
    /// True when the loop runs on io_uring.
    bool uses_io_uring() const { return ring_ != nullptr; }
    /// Ok when EventLoopOptions::io_uring can work here (built with liburing, and the kernel allows it), else
    /// the reason. Any thread; sets up and closes a small ring.
    static base::Status io_uring_support();

    // --- cross-thread (any thread) ---

    /// Queues `task` to run on the loop thread; tasks run in the order post() calls were made (FIFO per
    /// loop). Wakes the loop only if it is blocked in epoll_wait and nobody woke it yet (one eventfd write
    /// per sleep, none while the loop is busy). Any thread, including the loop thread. The loop must outlive
    /// the call; tasks left when it is destroyed never run.
    void post(Task task);
    /// Makes run() return after the current iteration. Any thread. If called before run(), the next run()
    /// returns at once. Until run() consumes the stop, run_once() does not block.
    void stop();
    /// True on the loop thread. Any thread.
    bool is_in_loop_thread() const { return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id(); }
    /// True while the loop is blocked (or about to block) in epoll_wait. Any thread; for tests/diagnostics.
    bool idle() const { return sleeping_.load(std::memory_order_seq_cst); }
    /// Number of eventfd writes made to wake this loop. Any thread; for tests/diagnostics.
    std::uint64_t wake_writes() const { return wake_writes_.load(std::memory_order_relaxed); }

    // --- running (loop thread) ---

    /// Makes the calling thread the loop thread (run() and run_once() do this too), for set-up code that
    /// registers fds on the thread before it runs the loop. Not while another thread runs the loop.
    void attach_to_current_thread() { owner_.store(std::this_thread::get_id(), std::memory_order_relaxed); }
    /// Runs iterations until stop(). The calling thread becomes the loop thread.
    void run();
    /// Runs one iteration, waiting at most `max_wait_ms` for events (-1: until an event, task or timer;
    /// 0: do not block). Returns the number of I/O events, tasks, timers and deferred callbacks run.
    std::size_t run_once(int max_wait_ms = -1);

    /// Queues `fn` to run at the end of the current iteration (after I/O events, posted tasks and timers).
    /// A callback deferred from a deferred callback runs at the end of the next iteration, which does not
    /// block. Loop thread.
    void defer(Task fn);

    // --- time (loop thread) ---

    /// Monotonic nanoseconds read once per iteration (after epoll_wait) from the loop's clock.
    base::MonoNanos now() const { return now_; }
    const base::Clock& clock() const { return clock_; }
    /// The loop's timer wheel; it is advanced to now() every iteration and bounds the epoll_wait timeout.
    TimerWheel& timers() { return timers_; }
    /// Schedules (or moves) `timer` to fire `delay_nanos` after now().
    void schedule_after(Timer& timer, std::int64_t delay_nanos) { timers_.schedule(timer, now_ + delay_nanos); }

    /// Iterations run so far. Loop thread.
    std::uint64_t iterations() const { return iterations_; }

  private:
    // An fd's registration; epoll data points at it, so an event leads to its handler in one load. Each fd
    // number keeps its record at a fixed address for the loop's life (reused when the number comes back).
    struct Registration {
        IoHandler* handler = nullptr;  // null: not registered (and for the wake fd)
        std::uint32_t events = 0;
    };
    static constexpr std::size_t kChunkBits = 8;  // records are allocated 256 fds at a time

    Registration* find(int fd) const;
    // Points the events of the batch being dispatched that belong to `reg` and are still to come at dropped_,
    // so a registration removed (or replaced) by a handler hears nothing more of that batch.
    void drop_fetched(const Registration* reg);
    int compute_timeout(int max_wait_ms) const;
    std::size_t dispatch(int ready);
    std::size_t run_ring_iteration(bool may_block, int timeout);
    std::size_t run_posted();
    std::size_t run_deferred();
    void drain_wake_fd();
    void wake();

    const base::Clock& clock_;
    int epoll_fd_ = -1;
    int wake_fd_ = -1;
    base::MonoNanos now_;
    std::atomic<std::thread::id> owner_;
    std::vector<epoll_event> events_;
    std::vector<std::unique_ptr<Registration[]>> registrations_;  // chunks of 2^kChunkBits, indexed by fd
    Registration wake_registration_;                              // the wake eventfd's epoll data
    Registration dropped_;        // where drop_fetched() points events that must not be delivered
    std::size_t fetched_ = 0;     // events of the batch being dispatched (0 outside dispatch)
    std::size_t delivering_ = 0;  // the index of the event being delivered; those before it are done
    TimerWheel timers_;
    std::vector<Task> deferred_;
    std::vector<Task> deferred_running_;
    std::uint64_t iterations_ = 0;

    // Cross-thread state. Wake protocol: post() publishes has_tasks_ then takes sleeping_ (true -> false)
    // and writes the eventfd only if it was true; the loop sets sleeping_ before checking has_tasks_ and
    // stop_ and blocking. Both pairs are seq_cst, so either the poster sees the loop asleep or the loop sees
    // the task.
    std::mutex mutex_;
    std::vector<Task> posted_;          // guarded by mutex_
    std::vector<Task> posted_running_;  // loop thread only
    std::atomic<bool> has_tasks_{false};
    std::atomic<bool> sleeping_{false};
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> wake_writes_{0};

    std::unique_ptr<uring::RingPoller> ring_;  // the io_uring backend; null on epoll loops
};

}  // namespace slipstream::net
