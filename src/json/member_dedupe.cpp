// Repeated-key handling for objects: Python dict semantics (keep the first position, the last value).
#include "json/member_dedupe.h"

#include <bit>
#include <functional>
#include <string_view>
#include <vector>

namespace slipstream::json::detail {

namespace {

constexpr std::uint32_t kLinearLimit = 16;

DedupeResult dedupe_linear(Member* m, std::uint32_t n, DuplicateKeys policy) {
    // Nearly every object has distinct keys: find the first repeat without moving anything.
    std::uint32_t first = n;
    for (std::uint32_t i = 1; i < n && first == n; ++i)
        for (std::uint32_t j = 0; j < i; ++j)
            if (key_equal(m[j].key, m[i].key)) {
                first = i;
                break;
            }
    if (first == n) return {n, DedupeResult::kNone};
    if (policy == DuplicateKeys::kReject) return {n, first};
    std::uint32_t out = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t j = 0;
        while (j < out && !key_equal(m[j].key, m[i].key))
            ++j;
        if (j == out) {
            m[out++] = m[i];
        } else if (policy == DuplicateKeys::kReject) {
            return {n, i};
        } else {
            m[j].value = m[i].value;
        }
    }
    return {out, DedupeResult::kNone};
}

DedupeResult dedupe_hashed(Member* m, std::uint32_t n, DuplicateKeys policy) {
    if (policy == DuplicateKeys::kReject) {
        // Check first, so a rejected object is left as it was.
        const std::size_t mask = std::bit_ceil(std::size_t{n} * 2) - 1;
        std::vector<std::uint32_t> slots(mask + 1, 0);  // index + 1; 0 = empty
        for (std::uint32_t i = 0; i < n; ++i) {
            std::size_t h = std::hash<std::string_view>{}(m[i].key) & mask;
            while (slots[h] != 0 && m[slots[h] - 1].key != m[i].key)
                h = (h + 1) & mask;
            if (slots[h] != 0) return {n, i};
            slots[h] = i + 1;
        }
        return {n, DedupeResult::kNone};
    }
    const std::size_t mask = std::bit_ceil(std::size_t{n} * 2) - 1;
    std::vector<std::uint32_t> slots(mask + 1, 0);  // output index + 1; 0 = empty
    std::uint32_t out = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::size_t h = std::hash<std::string_view>{}(m[i].key) & mask;
        while (slots[h] != 0 && m[slots[h] - 1].key != m[i].key)
            h = (h + 1) & mask;
        if (slots[h] != 0) {
            m[slots[h] - 1].value = m[i].value;
        } else {
            m[out] = m[i];
            slots[h] = ++out;
        }
    }
    return {out, DedupeResult::kNone};
}

}  // namespace

DedupeResult dedupe_members(Member* members, std::uint32_t n, DuplicateKeys policy) {
    if (n <= kLinearLimit) return dedupe_linear(members, n, policy);
    return dedupe_hashed(members, n, policy);
}

}  // namespace slipstream::json::detail
