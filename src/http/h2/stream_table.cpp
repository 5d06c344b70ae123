// StreamTable: sorted ids with their streams; open appends (ids grow), close erases and recycles.
#include "http/h2/stream_table.h"

#include <algorithm>

namespace slipstream::http::h2::detail {

std::size_t StreamTable::index_of(std::int32_t id) const {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id) return ids_.size();
    return static_cast<std::size_t>(it - ids_.begin());
}

Stream& StreamTable::open(std::int32_t id) {
    std::unique_ptr<Stream> s;
    if (spare_.empty()) {
        s = std::make_unique<Stream>();
    } else {
        s = std::move(spare_.back());
        spare_.pop_back();
    }
    s->id = id;
    Stream& ref = *s;
    auto at = std::lower_bound(ids_.begin(), ids_.end(), id);
    auto i = at - ids_.begin();
    ids_.insert(at, id);
    streams_.insert(streams_.begin() + i, std::move(s));
    last_ = &ref;
    return ref;
}

void StreamTable::close(Stream& s) {
    std::size_t i = index_of(s.id);
    if (i == ids_.size()) return;
    if (last_ == &s) last_ = nullptr;
    std::unique_ptr<Stream> owned = std::move(streams_[i]);
    ids_.erase(ids_.begin() + static_cast<std::ptrdiff_t>(i));
    streams_.erase(streams_.begin() + static_cast<std::ptrdiff_t>(i));
    if (spare_.size() >= kMaxSpare) return;
    owned->recycle();
    spare_.push_back(std::move(owned));
}

}  // namespace slipstream::http::h2::detail
