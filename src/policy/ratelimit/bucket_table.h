// BucketTable: one shard's keys -> GCRA state, a bounded open-addressing hash table in LRU order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ratelimit/gcra.h"

namespace slipstream::policy::ratelimit::detail {

/// Up to `capacity` keys, each with a GcraState and a place in least-recently-used order.
///
/// Entries live densely in slots 0..size()-1 (erase moves the last one into the hole), with the
/// bucket times in their own array so that erase_expired() is a linear scan. An index of
/// power-of-two size (at most half full, linear probing, backward-shift deletion) maps a key's
/// hash to its slot; each index entry carries 32 hash bits, so a probe rarely touches a slot whose
/// key differs. The caller hashes each key once and passes the hash in.
///
/// Not thread-safe: RateLimiter guards each table with its shard's mutex. Finding a key allocates
/// nothing; inserting one copies the key and may grow the arrays (never beyond `capacity`).
class BucketTable {
  public:
    static constexpr std::uint32_t kNone = 0xffff'ffff;

    /// `capacity` >= 1 and < 2^31.
    explicit BucketTable(std::size_t capacity);

    std::size_t size() const { return slots_.size(); }
    std::size_t capacity() const { return capacity_; }

    /// The slot holding `key` (whose hash is `hash`), or kNone.
    std::uint32_t find(std::string_view key, std::uint64_t hash) const;

    /// Adds `key`, absent, as the most recently used entry with `state`; requires size() < capacity().
    /// Returns its slot.
    std::uint32_t insert(std::string_view key, std::uint64_t hash, GcraState state);

    /// Makes `slot` the most recently used entry.
    void touch(std::uint32_t slot);

    /// Removes the entry in `slot`; the last slot's entry moves into it.
    void erase(std::uint32_t slot);

    /// The least recently used slot, or kNone when empty.
    std::uint32_t lru() const { return tail_; }

    GcraState state(std::uint32_t slot) const { return {tats_[slot], slots_[slot].under}; }
    void set_state(std::uint32_t slot, GcraState state) {
        tats_[slot] = state.tat_ns;
        slots_[slot].under = state.under;
        // GCRA only moves a TAT forward, but the bound must hold for any state.
        if (state.tat_ns < earliest_expiry_) earliest_expiry_ = state.tat_ns;
    }
    const std::string& key(std::uint32_t slot) const { return slots_[slot].key; }

    /// Removes every entry whose bucket is full again at now_ns (tat_ns <= now_ns): forgetting it
    /// loses nothing, as a fresh key starts full. Returns how many it removed.
    std::size_t erase_expired(std::int64_t now_ns);

    /// A lower bound on when the next bucket becomes full: no entry has tat_ns below it. So while
    /// now_ns < earliest_expiry(), erase_expired() would remove nothing.
    std::int64_t earliest_expiry() const { return earliest_expiry_; }

  private:
    struct Slot {
        std::string key;
        std::uint64_t hash;
        std::uint32_t under;
        std::uint32_t prev;  // toward the most recently used; kNone at the head
        std::uint32_t next;  // toward the least recently used; kNone at the tail
    };
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

    // An index entry: the low 32 bits of the hash above the slot number.
    static std::uint64_t entry(std::uint64_t hash, std::uint32_t slot) { return (hash << 32) | slot; }
    std::size_t home(std::uint64_t hash) const { return static_cast<std::size_t>(hash) & mask_; }
    // Where slot's entry sits in the index.
    std::size_t position_of(std::uint32_t slot) const;
    void index_remove(std::size_t pos);
    void rebuild_index(std::size_t size);
    void unlink(std::uint32_t slot);
    void push_front(std::uint32_t slot);

    std::size_t capacity_;
    std::vector<Slot> slots_;
    std::vector<std::int64_t> tats_;  // GcraState::tat_ns per slot
    std::vector<std::uint64_t> index_;
    std::size_t mask_ = 0;
    std::uint32_t head_ = kNone;  // most recently used
    std::uint32_t tail_ = kNone;  // least recently used
    std::int64_t earliest_expiry_ = std::numeric_limits<std::int64_t>::max();
};

}  // namespace slipstream::policy::ratelimit::detail
