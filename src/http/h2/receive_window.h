// ReceiveWindow: how much a peer may still send us on a stream or the connection, and when to reopen it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slipstream::http::h2::detail {

/// RFC 9113 §6.9 from the receiving side. `take` counts a DATA frame's whole length against the window;
/// `consume` returns processed bytes, and once at least half of the window's size was consumed since the
/// last update it says how much to announce in a WINDOW_UPDATE (the bytes then count as available again).
class ReceiveWindow {
  public:
    ReceiveWindow() = default;
    explicit ReceiveWindow(std::int64_t size) : available_(size), size_(size) {}

    /// False when `n` bytes exceed what the peer was allowed to send (FLOW_CONTROL_ERROR).
    [[nodiscard]] bool take(std::uint32_t n) {
        if (n > available_) return false;
        available_ -= n;
        return true;
    }

    /// `n` taken bytes were processed. Returns the WINDOW_UPDATE increment to send now, or 0.
    std::uint32_t consume(std::size_t n) {
        consumed_ += static_cast<std::int64_t>(n);
        return announce();
    }

    /// The window's size changed (our SETTINGS_INITIAL_WINDOW_SIZE took effect): the difference applies to
    /// what is available, which may go negative (§6.9.2). Returns the WINDOW_UPDATE increment to send now,
    /// or 0: bytes consumed before may now be half of the (smaller) window, and the peer, its window closed,
    /// would otherwise wait for an update that no new byte triggers.
    std::uint32_t resize(std::int64_t size) {
        available_ += size - size_;
        size_ = size;
        return announce();
    }

    std::int64_t available() const { return available_; }

  private:
    std::uint32_t announce() {
        if (consumed_ == 0 || consumed_ < size_ / 2) return 0;
        auto increment = static_cast<std::uint32_t>(consumed_);
        available_ += consumed_;
        consumed_ = 0;
        return increment;
    }

    std::int64_t available_ = 0;
    std::int64_t size_ = 0;
    std::int64_t consumed_ = 0;  // taken and processed, not yet announced
};

}  // namespace slipstream::http::h2::detail
