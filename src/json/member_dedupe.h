// Repeated-key handling for objects, shared by the simdjson path and the strict parser.
#pragma once

#include <cstdint>
#include <limits>

#include "json/parse.h"
#include "json/value.h"

namespace slipstream::json::detail {

struct DedupeResult {
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t size = 0;           // members left in [0, size)
    std::uint32_t duplicate = kNone;  // kReject: index of the first repeated key (its second occurrence)
};

/// Removes repeated keys from members[0, n) in place, the way a Python dict does: the first occurrence keeps
/// its position and takes the value of the last one. With DuplicateKeys::kReject it stops at the first repeat
/// and leaves the members unchanged. Linear scans up to 16 members, a hash table above (hostile objects
/// with thousands of keys stay linear time).
DedupeResult dedupe_members(Member* members, std::uint32_t n, DuplicateKeys policy);

}  // namespace slipstream::json::detail
