// Executor: the one Python thread of a process; takes batches of ready requests and runs their handlers.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "py_ref.h"
#include "slipstream/request.h"
#include "slipstream/responder.h"

namespace slipstream::python {

class PyRoute;

/// I/O threads submit() requests without touching the GIL; the executor thread runs an asyncio loop
/// (slipstream/_runtime.py) that watches an eventfd and calls drain(), which takes every queued request and
/// runs the handlers with the GIL held for the whole batch. At most one eventfd write per batch.
class Executor {
  public:
    Executor();
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    /// Any thread, no GIL needed. The route must outlive the executor.
    void submit(const Request& request, Responder responder, const PyRoute* route);

    /// Starts the executor thread: it takes the GIL and calls `runner(eventfd, drain)`, which runs until
    /// drain() reports a stop. Call with the GIL held.
    void start(PyObject* runner);
    /// Asks the executor to stop after the queued requests. Any thread.
    void request_stop();
    /// Waits for the executor thread. Call WITHOUT the GIL. Returns false, without waiting, when called on the
    /// executor thread itself (a thread cannot join itself); never throws.
    bool join() noexcept;
    bool running() const { return thread_.joinable(); }
    /// Whether the caller is the executor thread (e.g. a handler, or the garbage collector run by one).
    bool on_own_thread() const noexcept { return thread_.joinable() && thread_.get_id() == std::this_thread::get_id(); }

    /// Executor thread, GIL held: runs every queued request. Returns true when the loop should stop.
    bool drain() noexcept;

  private:
    struct Job {
        Request request;
        Responder responder;
        const PyRoute* route;
    };

    std::mutex mutex_;
    std::vector<Job> queue_;
    std::vector<Job> batch_;
    bool notified_ = false;
    std::atomic<bool> stop_{false};
    int event_fd_ = -1;
    std::thread thread_;
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
