// TokenBytes: the sort, the shared prefixes and the first-byte ranges.
#include "agent/infer/token_bytes.h"

#include <algorithm>

namespace slipstream::agent::infer {

TokenBytes::TokenBytes(std::vector<std::string> bytes) : bytes_(std::move(bytes)), classes_(bytes_) {
    for (size_t t = 0; t < bytes_.size(); ++t) {
        if (!bytes_[t].empty()) order_.push_back(static_cast<int32_t>(t));
        max_bytes_ = std::max(max_bytes_, bytes_[t].size());
    }
    std::sort(order_.begin(), order_.end(),
              [this](int32_t a, int32_t b) { return bytes_[a] < bytes_[b] || (bytes_[a] == bytes_[b] && a < b); });
    shared_.assign(order_.size(), 0);
    for (size_t i = 0; i + 1 < order_.size(); ++i) {
        const std::string& a = bytes_[order_[i]];
        const std::string& b = bytes_[order_[i + 1]];
        const auto diff = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
        shared_[i] = static_cast<uint32_t>(diff.first - a.begin());
    }
    // first_[b]: the first position whose first byte is >= b.
    size_t i = 0;
    for (unsigned b = 0; b < 256; ++b) {
        while (i < order_.size() && static_cast<unsigned char>(bytes_[order_[i]][0]) < b)
            ++i;
        first_[b] = static_cast<uint32_t>(i);
    }
    first_[256] = static_cast<uint32_t>(order_.size());
    second_.assign(256 * 257, 0);
    for (unsigned b = 0; b < 256; ++b) {
        uint32_t j = first_[b];
        while (j < first_[b + 1] && bytes_[order_[j]].size() == 1)
            ++j;
        for (unsigned c = 0; c < 256; ++c) {
            while (j < first_[b + 1] && static_cast<unsigned char>(bytes_[order_[j]][1]) < c)
                ++j;
            second_[b * 257 + c] = j;
        }
        second_[b * 257 + 256] = first_[b + 1];
    }
}

std::pair<uint32_t, uint32_t> TokenBytes::prefix_range(std::string_view prefix) const {
    const auto lo = std::lower_bound(order_.begin(), order_.end(), prefix,
                                     [this](int32_t t, std::string_view p) { return std::string_view(bytes_[t]) < p; });
    const auto from = static_cast<uint32_t>(lo - order_.begin());
    const uint32_t end = from < order_.size() && std::string_view(bytes_[*lo]).starts_with(prefix)
                             ? past_prefix(from, static_cast<uint32_t>(order_.size()), prefix)
                             : from;
    return {from, end};
}

uint32_t TokenBytes::past_prefix(uint32_t from, uint32_t end, std::string_view prefix) const {
    const auto under = [&](uint32_t i) { return std::string_view(bytes_[order_[i]]).starts_with(prefix); };
    // Galloping: most refused prefixes cover few tokens.
    uint32_t lo = from, step = 1;
    while (lo + step < end && under(lo + step)) {
        lo += step;
        step *= 2;
    }
    const uint32_t hi = std::min(end, lo + step);
    const auto it = std::partition_point(order_.begin() + lo, order_.begin() + hi,
                                         [&](int32_t t) { return std::string_view(bytes_[t]).starts_with(prefix); });
    return static_cast<uint32_t>(it - order_.begin());
}

}  // namespace slipstream::agent::infer
