// HandlerCount: asynchronous handlers still running, counted from any thread (the process-wide cap
// max_handlers_in_flight, and an HTTP/2 connection's streams whose handlers outlive a client reset).
#pragma once

#include <atomic>
#include <cstddef>
#include <limits>
#include <memory>
#include <utility>

namespace slipstream::server {

/// A count with a cap. Tickets hold it alive, so a handler that outlives the server or the connection still
/// leaves safely. Lock-free; any thread.
class HandlerCount {
  public:
    /// Counts one handler while it lives (moved into the handler's PendingResponse, which dies once the handler
    /// let go of its Responder and the loop of its last posted task). Empty when admission was refused.
    class Ticket {
      public:
        Ticket() = default;
        Ticket(Ticket&&) noexcept = default;
        Ticket& operator=(Ticket&& other) noexcept {
            if (this != &other) {
                leave();
                count_ = std::move(other.count_);
            }
            return *this;
        }
        ~Ticket() { leave(); }
        explicit operator bool() const { return count_ != nullptr; }

      private:
        friend class HandlerCount;
        explicit Ticket(std::shared_ptr<HandlerCount> count) : count_(std::move(count)) {}
        void leave() {
            if (count_) count_->running_.fetch_sub(1, std::memory_order_relaxed);
            count_.reset();
        }
        std::shared_ptr<HandlerCount> count_;
    };

    explicit HandlerCount(std::size_t cap = std::numeric_limits<std::size_t>::max()) : cap_(cap) {}

    /// A ticket when fewer than the cap run, else an empty one (nothing counted).
    static Ticket try_enter(const std::shared_ptr<HandlerCount>& count) {
        if (count->running_.fetch_add(1, std::memory_order_relaxed) < count->cap_) return Ticket(count);
        count->running_.fetch_sub(1, std::memory_order_relaxed);
        return {};
    }
    /// A ticket whatever the count.
    static Ticket enter(const std::shared_ptr<HandlerCount>& count) {
        count->running_.fetch_add(1, std::memory_order_relaxed);
        return Ticket(count);
    }
    std::size_t running() const { return running_.load(std::memory_order_relaxed); }
    std::size_t cap() const { return cap_; }

  private:
    std::atomic<std::size_t> running_{0};
    std::size_t cap_;
};

}  // namespace slipstream::server
