// Disconnects: which suspended Python handlers lost their client, handed from the I/O threads to the executor loop.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace slipstream::python {

/// App(cancel_on_disconnect=True): a handler's coroutine that suspended gets an id; when its client disconnects
/// (Responder::on_cancel, on an I/O thread) the id is queued here and an eventfd written once per batch, without
/// the GIL. The executor's loop watches fd() and cancels the tasks of the ids take() returns
/// (slipstream/_runtime.py). Shared by the app and the callbacks (which may outlive it).
class Disconnects {
  public:
    Disconnects();
    ~Disconnects();
    Disconnects(const Disconnects&) = delete;
    Disconnects& operator=(const Disconnects&) = delete;

    int fd() const { return fd_; }
    /// A new id (never 0). Executor thread.
    std::uint64_t next_id() { return ++last_id_; }
    /// Any thread, no GIL: `id`'s client is gone.
    void push(std::uint64_t id);
    /// The ids queued since the last call. Executor thread.
    std::vector<std::uint64_t> take();

  private:
    int fd_ = -1;
    std::uint64_t last_id_ = 0;
    std::mutex mutex_;
    std::vector<std::uint64_t> queue_;
    bool notified_ = false;
};

}  // namespace slipstream::python
