// StaticPathIndex: building (with doubling) and the one-probe lookup.
#include "server/router/static_path_index.h"

#include "server/router/path_scan.h"

namespace slipstream::server::detail {

void StaticPathIndex::place(std::vector<Slot>& slots, const Slot& slot) const {
    const auto mask = static_cast<std::uint32_t>(slots.size() - 1);
    auto s = static_cast<std::uint32_t>(path_hash({bytes_.data() + slot.off, slot.len})) & mask;
    while (slots[s].value != kAbsent)
        s = (s + 1) & mask;
    slots[s] = slot;
}

void StaticPathIndex::add(std::string_view path, std::uint32_t value) {
    if (find(path) != kAbsent) return;
    Slot slot{static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(path.size()), value};
    bytes_.append(path);
    if ((count_ + 1) * 2 > slots_.size()) {
        // Doubling keeps the table at most half full, so every probe ends at an empty slot.
        std::vector<Slot> grown(slots_.empty() ? 8 : slots_.size() * 2);
        for (const Slot& s : slots_) {
            if (s.value != kAbsent) place(grown, s);
        }
        slots_ = std::move(grown);
    }
    place(slots_, slot);
    ++count_;
}

// ~20 instructions for a short path: the hash, one probe, one compare (see router_bench BM_MatchHitStatic).
std::uint32_t StaticPathIndex::find(std::string_view path) const noexcept {
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
