// StreamTable: a session's live streams by id, with closed streams recycled so opening one allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "http/h2/stream.h"

namespace slipstream::http::h2::detail {

/// Streams sorted by id (client ids only grow, so opening appends). A lookup is a check of the last stream
/// found, then a binary search over a dense array of (id, stream) pairs. Streams mostly close oldest first:
/// closing the first one only moves the start of the array. Every stream lives in a pool; closed ones are
/// recycled (up to a bound), so neither opening nor closing allocates once warm.
class StreamTable {
  public:
    /// The stream with `id`, or nullptr.
    Stream* find(std::int32_t id) const {
        if (last_ != nullptr && last_->id == id) return last_;
        std::size_t i = index_of(id);
        if (i == live_.size()) return nullptr;
        last_ = live_[i].stream;
        return last_;
    }
    /// A new stream with `id` (not in the table).
    Stream& open(std::int32_t id);
    /// Removes `s` (from this table) and recycles it.
    void close(Stream& s);

    std::size_t size() const { return live_.size() - first_; }
    bool empty() const { return size() == 0; }
    /// The i-th live stream by id order (for changes that apply to every stream).
    Stream& at(std::size_t i) { return *live_[first_ + i].stream; }

  private:
    struct Entry {
        std::int32_t id;
        Stream* stream;  // owned by pool_
    };
    std::size_t index_of(std::int32_t id) const;

    static constexpr std::size_t kMaxSpare = 32;
    std::vector<Entry> live_;  // sorted by id; live from first_ on
    std::size_t first_ = 0;
    std::vector<std::unique_ptr<Stream>> pool_;  // every stream, live or spare
    std::vector<Stream*> spare_;                 // recycled streams of pool_
    mutable Stream* last_ = nullptr;             // the stream find() returned last
};

}  // namespace slipstream::http::h2::detail
