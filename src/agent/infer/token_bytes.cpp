// TokenBytes: the sort, the shared prefixes and the first-byte ranges.
#include "agent/infer/token_bytes.h"

#include <algorithm>

namespace slipstream::agent::infer {
namespace {

// The bytes `b` begins with that could continue a number: digits, then '.' and digits, then an exponent ('e' or
// 'E', a sign, digits), each part at most once.
size_t number_prefix(std::string_view b) {
    size_t i = 0;
    const auto digits = [&] {
        while (i < b.size() && b[i] >= '0' && b[i] <= '9')
            ++i;
    };
    digits();
    if (i < b.size() && b[i] == '.') {
        ++i;
        digits();
    }
    if (i < b.size() && (b[i] == 'e' || b[i] == 'E')) {
        ++i;
        if (i < b.size() && (b[i] == '+' || b[i] == '-')) ++i;
        digits();
    }
    return i;
}

}  // namespace

TokenBytes::TokenBytes(std::vector<std::string> bytes) : bytes_(std::move(bytes)), classes_(bytes_) {
    for (size_t t = 0; t < bytes_.size(); ++t) {
        if (!bytes_[t].empty()) order_.push_back(static_cast<int32_t>(t));
        max_bytes_ = std::max(max_bytes_, bytes_[t].size());
        max_number_prefix_ = std::max(max_number_prefix_, number_prefix(bytes_[t]));
        const auto count = [&](char a, char b) {
            return static_cast<size_t>(std::count(bytes_[t].begin(), bytes_[t].end(), a) +
                                       std::count(bytes_[t].begin(), bytes_[t].end(), b));
        };
        max_closers_ = std::max(max_closers_, count('}', ']'));
        max_openers_ = std::max(max_openers_, count('{', '['));
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
    size_t total = 0;
    for (const std::string& b : bytes_)
        total += b.size();
    arena_.reserve(total);
    for (int32_t t : order_)
        arena_ += bytes_[static_cast<size_t>(t)];
    by_id_.assign(bytes_.size(), std::string_view());
    by_order_.reserve(order_.size());
    for (size_t k = 0, at = 0; k < order_.size(); ++k) {
        const size_t n = bytes_[static_cast<size_t>(order_[k])].size();
        by_order_.emplace_back(arena_.data() + at, n);
        by_id_[static_cast<size_t>(order_[k])] = by_order_.back();
        at += n;
    }
    kinds_.reserve(by_order_.size());
    for (std::string_view b : by_order_) {
        const bool digits = std::all_of(b.begin(), b.end(), [](char c) { return c >= '0' && c <= '9'; });
        const bool space =
            std::all_of(b.begin(), b.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
        kinds_.push_back(static_cast<uint8_t>((digits ? kDigits : 0) | (space ? kSpace : 0)));
    }
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
        for (unsigned c = 0; c < 256; ++c)
            if (second_[b * 257 + c] < second_[b * 257 + c + 1]) seconds_[b].push_back(static_cast<uint8_t>(c));
    }
    bytes_.clear();
    bytes_.shrink_to_fit();
}

std::pair<uint32_t, uint32_t> TokenBytes::prefix_range(std::string_view prefix) const {
    const auto lo = std::lower_bound(by_order_.begin(), by_order_.end(), prefix);
    const auto from = static_cast<uint32_t>(lo - by_order_.begin());
    const uint32_t end = from < by_order_.size() && by_order_[from].starts_with(prefix)
                             ? past_prefix(from, static_cast<uint32_t>(order_.size()), prefix)
                             : from;
    return {from, end};
}

uint32_t TokenBytes::past_prefix(uint32_t from, uint32_t end, std::string_view prefix) const {
    const auto under = [&](uint32_t i) { return by_order_[i].starts_with(prefix); };
    // Galloping: most refused prefixes cover few tokens.
    uint32_t lo = from, step = 1;
    while (lo + step < end && under(lo + step)) {
        lo += step;
        step *= 2;
    }
    const uint32_t hi = std::min(end, lo + step);
    const auto it = std::partition_point(by_order_.begin() + lo, by_order_.begin() + hi,
                                         [&](std::string_view b) { return b.starts_with(prefix); });
    return static_cast<uint32_t>(it - by_order_.begin());
}

}  // namespace slipstream::agent::infer
