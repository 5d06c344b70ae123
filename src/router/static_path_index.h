// StaticPathIndex: whole literal paths to a value, one hash probe per lookup (the router's exact-path shortcut).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "router/path_scan.h"

namespace slipstream::server::detail {

/// An open-addressing table from whole paths ("/users/me") to a 32-bit value. Built at startup (add),
/// then read-only: find() is const, allocates nothing and may run on many threads at once.
class StaticPathIndex {
  public:
    static constexpr std::uint32_t kAbsent = UINT32_MAX;

    /// Maps `path` to `value`; a path already present keeps its value. Control plane (may allocate).
    void add(std::string_view path, std::uint32_t value);

    /// The value of exactly `path`, or kAbsent. Inline: the router's walk starts with it on every request.
    std::uint32_t find(std::string_view path) const noexcept;

    std::size_t size() const { return count_; }

  private:
    struct Slot {
        std::uint32_t off = 0;  // in bytes_
        std::uint32_t len = 0;
        std::uint32_t value = kAbsent;  // kAbsent: an empty slot
    };

    void place(std::vector<Slot>& slots, const Slot& slot) const;

    std::vector<Slot> slots_;  // a power of two, at most half full; empty until the first add()
    std::string bytes_;        // the paths, back to back
    std::size_t count_ = 0;
};

// ~20 instructions for a short path: the hash, one probe, one compare (see router_bench BM_MatchHitStatic).
inline std::uint32_t StaticPathIndex::find(std::string_view path) const noexcept {
    if (slots_.empty()) return kAbsent;
    const auto mask = static_cast<std::uint32_t>(slots_.size() - 1);
    for (auto s = static_cast<std::uint32_t>(path_hash(path)) & mask;; s = (s + 1) & mask) {
        const Slot& slot = slots_[s];
        if (slot.value == kAbsent) return kAbsent;
        if (slot.len == path.size() && bytes_equal(path.data(), bytes_.data() + slot.off, path.size())) {
            return slot.value;
        }
    }
}

}  // namespace slipstream::server::detail
