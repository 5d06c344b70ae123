// HPACK dynamic table (RFC 7541 §2.3.2, §4): a FIFO of fields, sized name + value + 32 each, with eviction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/h2/hpack/hpack_bytes.h"

namespace slipstream::http::h2 {

/// Entries are numbered from the newest (0) to the oldest (count() - 1); HPACK index = 62 + that number.
/// Storage is one byte buffer (the live fields back to back, compacted when its end is reached) and a ring of
/// entry records, both grown on demand up to what the capacity needs, then reused: a warm table allocates
/// nothing. An encoder's table also keeps hash chains for find() (`indexed`).
class HpackDynamicTable {
  public:
    explicit HpackDynamicTable(std::uint32_t capacity, bool indexed = false);

    static constexpr std::size_t kEntryOverhead = 32;
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

    /// Sum of name + value + 32 over the entries.
    std::size_t size() const { return size_; }
    std::uint32_t capacity() const { return capacity_; }
    std::size_t count() const { return static_cast<std::size_t>(next_seq_ - first_seq_); }
    /// Entry `i` (< count()); views valid until the next insert().
    std::string_view name(std::size_t i) const {
        const Slot& s = slot(next_seq_ - 1 - i);
        return {bytes_.data() + s.offset, s.name_len};
    }
    std::string_view value(std::size_t i) const {
        const Slot& s = slot(next_seq_ - 1 - i);
        return {bytes_.data() + s.offset + s.name_len, s.value_len};
    }
    /// Both of entry `i`; false when i >= count().
    bool get(std::size_t i, std::string_view& name, std::string_view& value) const {
        if (i >= count()) return false;
        const Slot& s = slot(next_seq_ - 1 - i);
        const char* p = bytes_.data() + s.offset;
        name = {p, s.name_len};
        value = {p + s.name_len, s.value_len};
        return true;
    }

    /// A new maximum size: evicts the oldest entries until the table fits.
    void set_capacity(std::uint32_t capacity);
    /// Adds a field as the newest entry, evicting the oldest entries first as needed. A field larger than the
    /// capacity empties the table and is not added (false). `name` and `value` may view this table's entries.
    bool insert(std::string_view name, std::string_view value);

    /// The hash find() and find_name() take (computed once per field by the encoder).
    static std::uint32_t hash_name(std::string_view name) { return detail::hpack_hash(name, 0); }
    /// Only for an indexed table: the newest entry equal to (name, value), else kNone.
    std::size_t find(std::string_view name, std::string_view value, std::uint32_t name_hash) const;
    std::size_t find(std::string_view name, std::string_view value) const { return find(name, value, hash_name(name)); }
    /// Only for an indexed table: the newest entry named `name`, else kNone.
    std::size_t find_name(std::string_view name, std::uint32_t name_hash) const;
    std::size_t find_name(std::string_view name) const { return find_name(name, hash_name(name)); }

  private:
    struct Slot {
        std::uint32_t offset;  // of the name in bytes_; the value follows it
        std::uint32_t name_len;
        std::uint32_t value_len;
        std::uint32_t name_hash;  // indexed tables only, as are the chains below
        std::uint32_t pair_hash;
        std::uint64_t next_name;  // the previous entry (sequence number) in the same name bucket, 0: none
        std::uint64_t next_pair;
    };
    static constexpr std::size_t kBuckets = 256;

    Slot& slot(std::uint64_t seq) { return slots_[seq & (slots_.size() - 1)]; }
    const Slot& slot(std::uint64_t seq) const { return slots_[seq & (slots_.size() - 1)]; }
    void evict_oldest();
    std::uint32_t reserve_bytes(std::size_t n);
    void grow_slots();
    void link(std::uint64_t seq, std::string_view name, std::string_view value);

    std::uint32_t capacity_;
    bool indexed_;
    std::size_t size_ = 0;
    std::vector<char> bytes_;
    std::size_t head_ = 0;  // live bytes are [head_, tail_)
    std::size_t tail_ = 0;
    std::vector<Slot> slots_;                  // ring, a power of two long
    std::uint64_t first_seq_ = 1;              // the oldest entry's sequence number
    std::uint64_t next_seq_ = 1;               // the next entry's
    std::vector<std::uint64_t> name_buckets_;  // newest sequence number per bucket (indexed only)
    std::vector<std::uint64_t> pair_buckets_;
    std::string scratch_;  // a field copied out of bytes_ while they move
};

}  // namespace slipstream::http::h2
