// HPACK dynamic table: FIFO accounting, byte buffer compaction, the slot ring and the encoder's hash chains.
#include "http/h2/hpack/hpack_dynamic_table.h"

#include <algorithm>
#include <cstring>

#include "http/h2/hpack/hpack_bytes.h"

namespace slipstream::http::h2 {

HpackDynamicTable::HpackDynamicTable(std::uint32_t capacity, bool indexed)
    : capacity_(capacity), indexed_(indexed), slots_(16) {
    if (indexed_) {
        name_buckets_.assign(kBuckets, 0);
        pair_buckets_.assign(kBuckets, 0);
    }
}

void HpackDynamicTable::set_capacity(std::uint32_t capacity) {
    capacity_ = capacity;
    while (size_ > capacity_)
        evict_oldest();
}

void HpackDynamicTable::evict_oldest() {
    const Slot& s = slot(first_seq_);
    size_ -= s.name_len + s.value_len + kEntryOverhead;
    head_ = s.offset + s.name_len + s.value_len;
    ++first_seq_;
    if (first_seq_ == next_seq_) head_ = tail_ = 0;
}

// Room for n more bytes at tail_: compacts the live bytes to the buffer's start, growing it first when they
// would fill more than half of it (so compaction moves at most one byte per byte inserted since the last one).
// Growth doubles, up to twice the capacity (live + n never exceeds the capacity): a few steps, then none.
std::uint32_t HpackDynamicTable::reserve_bytes(std::size_t n) {
    if (tail_ + n <= bytes_.size()) return static_cast<std::uint32_t>(tail_);
    std::size_t live = tail_ - head_;
    if (2 * (live + n) > bytes_.size()) {
        std::size_t size = std::max({2 * (live + n), 2 * bytes_.size(), std::size_t{256}});
        std::vector<char> bigger(std::max(std::min<std::size_t>(size, 2 * std::size_t{capacity_}), 2 * (live + n)));
        if (live > 0) std::memcpy(bigger.data(), bytes_.data() + head_, live);
        bytes_.swap(bigger);
    } else if (live > 0) {
        std::memmove(bytes_.data(), bytes_.data() + head_, live);
    }
    for (std::uint64_t seq = first_seq_; seq != next_seq_; ++seq)
        slot(seq).offset -= static_cast<std::uint32_t>(head_);
    head_ = 0;
    tail_ = live;
    return static_cast<std::uint32_t>(tail_);
}

void HpackDynamicTable::grow_slots() {
    std::vector<Slot> bigger(slots_.size() * 2);
    for (std::uint64_t seq = first_seq_; seq != next_seq_; ++seq)
        bigger[seq & (bigger.size() - 1)] = slot(seq);
    slots_.swap(bigger);
}

bool HpackDynamicTable::insert(std::string_view name, std::string_view value) {
    std::size_t need = name.size() + value.size() + kEntryOverhead;
    if (need > capacity_) {
        while (count() > 0)
            evict_oldest();
        return false;
    }
    // A field viewing this table's bytes is copied out before eviction and compaction can move them.
    auto inside = [this](std::string_view s) {
        auto p = reinterpret_cast<std::uintptr_t>(s.data());
        auto b = reinterpret_cast<std::uintptr_t>(bytes_.data());
        return !s.empty() && p >= b && p < b + bytes_.size();
    };
    if (inside(name) || inside(value)) {
        scratch_.assign(name);
        scratch_.append(value);
        name = std::string_view(scratch_).substr(0, name.size());
        value = std::string_view(scratch_).substr(name.size());
    }
    while (size_ + need > capacity_)
        evict_oldest();
    if (count() == slots_.size()) grow_slots();
    std::uint32_t offset = reserve_bytes(name.size() + value.size());
    if (!name.empty()) std::memcpy(bytes_.data() + offset, name.data(), name.size());
    if (!value.empty()) std::memcpy(bytes_.data() + offset + name.size(), value.data(), value.size());
    tail_ = offset + name.size() + value.size();
    size_ += need;
    std::uint64_t seq = next_seq_++;
    Slot& s = slot(seq);
    s.offset = offset;
    s.name_len = static_cast<std::uint32_t>(name.size());
    s.value_len = static_cast<std::uint32_t>(value.size());
    if (indexed_) link(seq, name, value);
    return true;
}

void HpackDynamicTable::link(std::uint64_t seq, std::string_view name, std::string_view value) {
    Slot& s = slot(seq);
    s.name_hash = hash_name(name);
    s.pair_hash = detail::hpack_hash(value, s.name_hash);
    std::uint64_t& name_head = name_buckets_[s.name_hash % kBuckets];
    s.next_name = name_head;
    name_head = seq;
    std::uint64_t& pair_head = pair_buckets_[s.pair_hash % kBuckets];
    s.next_pair = pair_head;
    pair_head = seq;
}

// Chains run from the newest entry to older ones: the first evicted one ends the walk.
std::size_t HpackDynamicTable::find(std::string_view name, std::string_view value, std::uint32_t name_hash) const {
    std::uint32_t ph = detail::hpack_hash(value, name_hash);
    for (std::uint64_t seq = pair_buckets_[ph % kBuckets]; seq >= first_seq_ && seq != 0; seq = slot(seq).next_pair) {
        const Slot& s = slot(seq);
        if (s.pair_hash != ph || s.name_len != name.size() || s.value_len != value.size()) continue;
        const char* p = bytes_.data() + s.offset;
        if (detail::hpack_bytes_equal(p, name.data(), name.size()) &&
            detail::hpack_bytes_equal(p + name.size(), value.data(), value.size())) {
            return static_cast<std::size_t>(next_seq_ - 1 - seq);
        }
    }
    return kNone;
}

std::size_t HpackDynamicTable::find_name(std::string_view name, std::uint32_t name_hash) const {
    for (std::uint64_t seq = name_buckets_[name_hash % kBuckets]; seq >= first_seq_ && seq != 0;
         seq = slot(seq).next_name) {
        const Slot& s = slot(seq);
        if (s.name_hash == name_hash && s.name_len == name.size() &&
            detail::hpack_bytes_equal(bytes_.data() + s.offset, name.data(), name.size())) {
            return static_cast<std::size_t>(next_seq_ - 1 - seq);
        }
    }
    return kNone;
}

}  // namespace slipstream::http::h2
