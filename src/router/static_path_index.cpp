// StaticPathIndex: building (with doubling) and the one-probe lookup.
#include "router/static_path_index.h"

#include "router/path_scan.h"

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

}  // namespace slipstream::server::detail
