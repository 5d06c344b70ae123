// Executor: the one Python thread of a process; takes batches of ready requests and runs their handlers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "py_ref.h"
#include "slipstream/request.h"
#include "slipstream/responder.h"

namespace slipstream::python {

class PyRoute;

/// I/O threads submit() requests without touching the GIL; the executor thread runs an asyncio loop
/// (slipstream/_runtime.py) that watches an eventfd and calls drain(), which takes every queued request and
/// runs the handlers with the GIL held for the whole batch. At most one eventfd write per batch.
///
/// A `def` handler that blocks (sleeps, waits on I/O or a lock, or computes) does not stall the others: the loop
/// is a baton that one thread holds at a time. drain() runs between two turns of the loop (from the loop's
/// selector, slipstream/_runtime.py), so when a watchdog sees one sync call still running after kBlockedAfter,
/// another thread (a parked one, or a new helper, at most kMaxHelpers) takes the baton and drives the loop and
/// the queue meanwhile; the blocked thread takes it back, at the next turn, once its handler returned, and only
/// then goes on (response, rest of its batch). Handlers that do not block keep the single-thread batch: the
/// watch costs two atomic operations per def call and no thread exists until one blocks.
class Executor {
  public:
    Executor();
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    /// Any thread, no GIL needed. The route must outlive the executor.
    void submit(const Request& request, Responder responder, const PyRoute* route);

    /// Starts the executor thread: it takes the GIL and calls `runner(eventfd, drain, turn, set_helper,
    /// set_call_soon)`, which runs until drain() reports a stop (set_call_soon(loop.call_soon) lets reply() send
    /// the answers of a loop turn together). Call with the GIL held.
    void start(PyObject* runner);
    /// Asks the executor to stop after the queued requests. Any thread.
    void request_stop();
    /// Waits for the executor thread. Call WITHOUT the GIL. Returns false, without waiting, when called on the
    /// executor thread itself (a thread cannot join itself); never throws.
    bool join() noexcept;
    bool running() const { return thread_.joinable(); }
    /// Whether the caller is one of this executor's threads (e.g. a handler, or the garbage collector run by one).
    bool on_own_thread() const noexcept;

    /// drain()'s answer, bits: kStop (the loop should stop), kHandedOff (another thread drove the loop while this
    /// one was blocked in a handler: the selector's events it read before are stale).
    static constexpr int kStop = 1;
    static constexpr int kHandedOff = 2;
    /// The baton's owner, GIL held: runs every queued request (and the rest of a batch a blocked thread left).
    int drain() noexcept;
    /// The baton's owner at each turn of the loop, GIL held: passes the baton to a thread whose blocked handler
    /// returned and parks until it is needed again. 1: go on; 2: go on, after parking; 0: a helper retires.
    int turn() noexcept;
    /// Around a `def` handler's call on the baton's owner, GIL held. end_sync_call() returns once the caller
    /// holds the baton again (it may wait, GIL released, when the handler blocked and another thread took over).
    void begin_sync_call() noexcept;
    void end_sync_call() noexcept;
    /// The executor whose thread (its own or a helper holding the baton) the caller is on, or nullptr.
    static Executor* current() noexcept;
    /// A complete response from a handler: on an executor thread inside drain(), kept and sent with the rest of
    /// the batch's answers when the batch ends (Responder::send_all: one wake-up of the I/O thread per batch
    /// instead of one per response; a handler that blocks long enough to be handed off sends what was kept
    /// first); on an executor thread outside drain() (a coroutine that suspended, answering from a loop
    /// callback), kept until the loop's next turn (a call_soon), with the other answers of that turn; elsewhere,
    /// at once. Any thread; GIL held on executor threads.
    static void reply(Responder& responder, Response response);
    /// Whether a blocked sync call can be handed off: the loop runs in the executor's selector, with helpers.
    bool can_hand_off() const noexcept { return helper_body_ != nullptr; }
    /// True, and cleared, when a sync call of the calling thread was handed off since the last check (or the start
    /// of its drain()): the selector's events it read before are stale. For sync calls made outside drain() (the
    /// MCP server's calls, drained from the same selector).
    static bool take_handed_off() noexcept;

    /// A blocked sync call is handed off once it ran this long (checked by a watchdog thread; 2x worst case).
    static constexpr auto kBlockedAfter = std::chrono::milliseconds(5);
    static constexpr int kMaxHelpers = 64;

  private:
    struct Job {
        Request request;
        Responder responder;
        const PyRoute* route;
    };

    void set_helper(PyObject* body);
    void watch() noexcept;
    void hand_off_locked() noexcept;  // the owner is blocked: a parked thread or a new helper takes the baton
    void run_helper(int token) noexcept;
    void retire_helpers() noexcept;  // the executor thread, at its end, GIL released
    void wake_loop() noexcept;
    void send_replies() noexcept;             // what reply() kept, sent
    void set_call_soon(PyObject* call_soon);  // the loop's call_soon (from the runner, once its loop exists)

    std::mutex mutex_;
    std::vector<Job> queue_;
    std::vector<Job> batch_;
    std::size_t next_job_ = 0;  // batch_[next_job_...] not run yet (the baton's owner's)
    bool notified_ = false;
    std::atomic<bool> stop_{false};
    int event_fd_ = -1;
    // The complete responses of the batches being run (reply()); sent at the end of drain() or at a hand-off.
    std::mutex replies_mutex_;
    std::vector<std::pair<Responder, Response>> replies_;
    bool send_scheduled_ = false;    // a call_soon(send_fn_) is pending (guarded by replies_mutex_)
    PyObject* call_soon_ = nullptr;  // the loop's call_soon (owned; executor threads, GIL held)
    PyObject* send_fn_ = nullptr;    // send_replies() as a Python callable (owned)
    std::thread thread_;

    // The baton (see the class comment). Lock order: the GIL may be held when taking baton_mutex_, never taken
    // while holding it.
    std::mutex baton_mutex_;
    std::condition_variable baton_cv_;
    int owner_ = 0;  // token of the thread that may drive the loop (0: the executor thread; -1: none)
    int next_token_ = 1;
    std::deque<int> returned_;  // threads whose blocked call returned, waiting for the baton, first come first
    std::vector<int> parked_;   // threads parked at a turn
    std::atomic<int> returned_count_{0};
    std::atomic<bool> stopping_baton_{false};  // stop_ seen while a helper held the baton: give it to token 0
    bool retiring_ = false;
    PyObject* helper_body_ = nullptr;  // Python: drives the loop on a helper thread (owned)
    std::vector<std::thread> helpers_;
    // Each thread's sync-call state (a thread_local in executor.cpp), by token: the watchdog reads the owner's.
    std::vector<std::atomic<std::uint64_t>*> slots_;
    std::thread watchdog_;
    std::condition_variable watchdog_cv_;
    bool watchdog_stop_ = false;
    std::atomic<bool> watchdog_idle_{false};
};

/// Threads of ours that run Python (executor threads, the helpers that free an app orphaned on its executor
/// thread) are counted: once finalization has begun, CPython ends a thread that asks for the GIL with a forced
/// unwind, which a noexcept frame (a GIL guard's destructor) turns into std::terminate.
namespace census {
void enter();
void leave();
}  // namespace census

/// At interpreter exit (slipstream/_runtime.py): asks every running executor to stop and waits, GIL released,
/// until no thread of ours runs Python any more; false when `timeout_s` passed first.
bool stop_python_threads(double timeout_s);

}  // namespace slipstream::python
