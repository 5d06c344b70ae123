// BucketTable: index probing, backward-shift deletion, dense slots and the LRU list.
#include "policy/ratelimit/bucket_table.h"

#include <algorithm>
#include <bit>

#include "base/assert.h"

namespace slipstream::policy::ratelimit::detail {
namespace {

constexpr std::size_t kInitialIndex = 16;
constexpr std::size_t kInitialSlots = 16;

}  // namespace

BucketTable::BucketTable(std::size_t capacity) : capacity_(capacity) {
    SLIPSTREAM_ASSERT(capacity >= 1 && capacity < (std::size_t{1} << 31));
    rebuild_index(std::min(kInitialIndex, std::bit_ceil(2 * capacity)));
}

std::uint32_t BucketTable::find(std::string_view key, std::uint64_t hash) const {
    const auto tag = static_cast<std::uint32_t>(hash);
    for (std::size_t pos = home(hash);; pos = (pos + 1) & mask_) {
        const std::uint64_t e = index_[pos];
        if (e == kEmpty) return kNone;
        if ((e >> 32) == tag) {
            const auto slot = static_cast<std::uint32_t>(e);
            if (slots_[slot].key == key) return slot;
        }
    }
}

std::uint32_t BucketTable::insert(std::string_view key, std::uint64_t hash, GcraState state) {
    SLIPSTREAM_ASSERT(size() < capacity_);
    const std::size_t n = size();
    if (n == slots_.capacity()) {
        const std::size_t grown = std::min(capacity_, std::max(kInitialSlots, 2 * n));
        slots_.reserve(grown);
        tats_.reserve(grown);
    }
    // Keep the index at most half full.
    if (2 * (n + 1) > index_.size()) rebuild_index(2 * index_.size());

    const auto slot = static_cast<std::uint32_t>(n);
    slots_.push_back(Slot{std::string(key), hash, state.under, kNone, kNone});
    tats_.push_back(state.tat_ns);
    std::size_t pos = home(hash);
    while (index_[pos] != kEmpty)
        pos = (pos + 1) & mask_;
    index_[pos] = entry(hash, slot);
    push_front(slot);
    earliest_expiry_ = std::min(earliest_expiry_, state.tat_ns);
    return slot;
}

void BucketTable::touch(std::uint32_t slot) {
    if (head_ == slot) return;
    unlink(slot);
    push_front(slot);
}

void BucketTable::erase(std::uint32_t slot) {
    unlink(slot);
    index_remove(position_of(slot));
    const auto last = static_cast<std::uint32_t>(size() - 1);
    if (slot != last) {
        // Move the last entry into the hole and repoint what refers to it.
        index_[position_of(last)] = entry(slots_[last].hash, slot);
        slots_[slot] = std::move(slots_[last]);
        tats_[slot] = tats_[last];
        const Slot& s = slots_[slot];
        if (s.prev != kNone) {
            slots_[s.prev].next = slot;
        } else {
            head_ = slot;
        }
        if (s.next != kNone) {
            slots_[s.next].prev = slot;
        } else {
            tail_ = slot;
        }
    }
    slots_.pop_back();
    tats_.pop_back();
}

std::size_t BucketTable::erase_expired(std::int64_t now_ns) {
    std::size_t removed = 0;
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    // Downward, so the entry erase() moves into slot i comes from above i: already seen and kept.
    for (std::size_t i = size(); i-- > 0;) {
        if (tats_[i] <= now_ns) {
            erase(static_cast<std::uint32_t>(i));
            ++removed;
        } else {
            earliest = std::min(earliest, tats_[i]);
        }
    }
    earliest_expiry_ = earliest;
    return removed;
}

std::size_t BucketTable::position_of(std::uint32_t slot) const {
    std::size_t pos = home(slots_[slot].hash);
    while (static_cast<std::uint32_t>(index_[pos]) != slot)
        pos = (pos + 1) & mask_;
    return pos;
}

void BucketTable::index_remove(std::size_t pos) {
    // Backward-shift deletion: pull each later entry of the probe run into the hole unless its
    // home lies cyclically in (hole, k], where a lookup would no longer reach it.
    std::size_t hole = pos;
    for (std::size_t k = (pos + 1) & mask_;; k = (k + 1) & mask_) {
        const std::uint64_t e = index_[k];
        if (e == kEmpty) break;
        const std::size_t h = static_cast<std::size_t>(e >> 32) & mask_;
        const bool stays = hole <= k ? (hole < h && h <= k) : (hole < h || h <= k);
        if (!stays) {
            index_[hole] = e;
            hole = k;
        }
    }
    index_[hole] = kEmpty;
}

void BucketTable::rebuild_index(std::size_t size) {
    index_.assign(size, kEmpty);
    mask_ = size - 1;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        std::size_t pos = home(slots_[i].hash);
        while (index_[pos] != kEmpty)
            pos = (pos + 1) & mask_;
        index_[pos] = entry(slots_[i].hash, static_cast<std::uint32_t>(i));
    }
}

void BucketTable::unlink(std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (s.prev != kNone) {
        slots_[s.prev].next = s.next;
    } else {
        head_ = s.next;
    }
    if (s.next != kNone) {
        slots_[s.next].prev = s.prev;
    } else {
        tail_ = s.prev;
    }
    s.prev = kNone;
    s.next = kNone;
}

void BucketTable::push_front(std::uint32_t slot) {
    Slot& s = slots_[slot];
    s.prev = kNone;
    s.next = head_;
    if (head_ != kNone) slots_[head_].prev = slot;
    head_ = slot;
    if (tail_ == kNone) tail_ = slot;
}

}  // namespace slipstream::policy::ratelimit::detail
