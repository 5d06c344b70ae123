// StreamTable: sorted (id, stream) pairs over a pool of streams; open appends (ids grow), close recycles.
#include "http/h2/stream_table.h"

#include <algorithm>

namespace slipstream::http::h2::detail {

std::size_t StreamTable::index_of(std::int32_t id) const {
    auto begin = live_.begin() + static_cast<std::ptrdiff_t>(first_);
    auto it = std::lower_bound(begin, live_.end(), id, [](const Entry& e, std::int32_t v) { return e.id < v; });
    if (it == live_.end() || it->id != id) return live_.size();
    return static_cast<std::size_t>(it - live_.begin());
}

Stream& StreamTable::open(std::int32_t id) {
    Stream* s = nullptr;
    if (spare_.empty()) {
        pool_.push_back(std::make_unique<Stream>());
        s = pool_.back().get();
    } else {
        s = spare_.back();
        spare_.pop_back();
    }
    s->id = id;
    if (live_.empty() || live_.back().id < id) {
        live_.push_back({id, s});
    } else {
        auto at =
            std::lower_bound(live_.begin(), live_.end(), id, [](const Entry& e, std::int32_t v) { return e.id < v; });
        live_.insert(at, {id, s});
    }
    last_ = s;
    return *s;
}

void StreamTable::close(Stream& s) {
    std::size_t i = first_ < live_.size() && live_[first_].stream == &s ? first_ : index_of(s.id);
    if (i == live_.size()) return;
    if (last_ == &s) last_ = nullptr;
    if (i == first_) {
        ++first_;
        if (first_ > 64 && first_ * 2 > live_.size()) {  // the closed front outgrew the live part: drop it
            live_.erase(live_.begin(), live_.begin() + static_cast<std::ptrdiff_t>(first_));
            first_ = 0;
        }
    } else {
        live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (spare_.size() < kMaxSpare) {
        s.recycle();
        spare_.push_back(&s);
        return;
    }
    // Past the bound (after a burst of streams): the stream's memory goes back.
    auto owned = std::find_if(pool_.begin(), pool_.end(), [&](const auto& p) { return p.get() == &s; });
    std::swap(*owned, pool_.back());
    pool_.pop_back();
}

}  // namespace slipstream::http::h2::detail
