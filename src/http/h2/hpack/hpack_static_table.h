// HPACK static table (RFC 7541 Appendix A): entries by index and a name lookup for the encoder.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::http::h2 {

struct HpackStaticEntry {
    std::string_view name;
    std::string_view value;
};

/// Entries 1-61; index 0 is not an entry.
inline constexpr std::size_t kHpackStaticTableSize = 61;

namespace detail {
/// RFC 7541 Appendix A, indexed as the RFC numbers it: slot 0 is empty and never looked up.
extern const std::array<HpackStaticEntry, kHpackStaticTableSize + 1> kHpackStaticEntries;
}  // namespace detail

/// The entry at `index` (1-61: the caller checks the range).
inline const HpackStaticEntry& hpack_static_entry(std::size_t index) {
    return detail::kHpackStaticEntries[index];
}

/// The entries named `name`: they are consecutive, `first` (0: none) and `count` of them.
struct HpackStaticName {
    std::uint8_t first = 0;
    std::uint8_t count = 0;
};
HpackStaticName hpack_static_find_name(std::string_view name);

/// The index of the entry (name, value), or 0 when the static table has none.
std::size_t hpack_static_find(std::string_view name, std::string_view value);

}  // namespace slipstream::http::h2
