// HPACK static table: RFC 7541 Appendix A, typed from the RFC, and a compile-time hash of its names.
#include "http/h2/hpack/hpack_static_table.h"

#include <array>

#include "http/h2/hpack/hpack_bytes.h"

namespace slipstream::http::h2 {

// RFC 7541 Appendix A.
constexpr std::array<HpackStaticEntry, kHpackStaticTableSize + 1> detail::kHpackStaticEntries = {{
    {"", ""},
    {":authority", ""},
    {":method", "GET"},
    {":method", "POST"},
    {":path", "/"},
    {":path", "/index.html"},
    {":scheme", "http"},
    {":scheme", "https"},
    {":status", "200"},
    {":status", "204"},
    {":status", "206"},
    {":status", "304"},
    {":status", "400"},
    {":status", "404"},
    {":status", "500"},
    {"accept-charset", ""},
    {"accept-encoding", "gzip, deflate"},
    {"accept-language", ""},
    {"accept-ranges", ""},
    {"accept", ""},
    {"access-control-allow-origin", ""},
    {"age", ""},
    {"allow", ""},
    {"authorization", ""},
    {"cache-control", ""},
    {"content-disposition", ""},
    {"content-encoding", ""},
    {"content-language", ""},
    {"content-length", ""},
    {"content-location", ""},
    {"content-range", ""},
    {"content-type", ""},
    {"cookie", ""},
    {"date", ""},
    {"etag", ""},
    {"expect", ""},
    {"expires", ""},
    {"from", ""},
    {"host", ""},
    {"if-match", ""},
    {"if-modified-since", ""},
    {"if-none-match", ""},
    {"if-range", ""},
    {"if-unmodified-since", ""},
    {"last-modified", ""},
    {"link", ""},
    {"location", ""},
    {"max-forwards", ""},
    {"proxy-authenticate", ""},
    {"proxy-authorization", ""},
    {"range", ""},
    {"referer", ""},
    {"refresh", ""},
    {"retry-after", ""},
    {"server", ""},
    {"set-cookie", ""},
    {"strict-transport-security", ""},
    {"transfer-encoding", ""},
    {"user-agent", ""},
    {"vary", ""},
    {"via", ""},
    {"www-authenticate", ""},
}};

namespace {

using detail::kHpackStaticEntries;

// Open addressing over the distinct names: slot -> first index of the name (0: empty).
constexpr std::size_t kSlots = 256;  // 52 names: most probes end at the first slot

constexpr std::size_t name_hash(std::string_view name) {
    if (name.empty()) return 0;
    return (name.size() * 37 + static_cast<unsigned char>(name[1 % name.size()]) * 5 +
            static_cast<unsigned char>(name.back())) %
           kSlots;
}

struct NameSlots {
    std::array<std::uint8_t, kSlots> first{};
    std::array<std::uint8_t, kSlots> count{};
};

constexpr NameSlots build_slots() {
    NameSlots t{};
    for (std::size_t i = 1; i <= kHpackStaticTableSize; ++i) {
        if (kHpackStaticEntries[i].name == kHpackStaticEntries[i - 1].name) {
            for (std::size_t s = name_hash(kHpackStaticEntries[i].name);; s = (s + 1) % kSlots) {
                if (kHpackStaticEntries[t.first[s]].name == kHpackStaticEntries[i].name) {
                    ++t.count[s];
                    break;
                }
            }
            continue;
        }
        std::size_t s = name_hash(kHpackStaticEntries[i].name);
        while (t.first[s] != 0)
            s = (s + 1) % kSlots;
        t.first[s] = static_cast<std::uint8_t>(i);
        t.count[s] = 1;
    }
    return t;
}

constexpr NameSlots kSlotTable = build_slots();

}  // namespace

HpackStaticName hpack_static_find_name(std::string_view name) {
    for (std::size_t s = name_hash(name);; s = (s + 1) % kSlots) {
        std::uint8_t first = kSlotTable.first[s];
        if (first == 0) return {};
        if (detail::hpack_equal(kHpackStaticEntries[first].name, name)) return {first, kSlotTable.count[s]};
    }
}

std::size_t hpack_static_find(std::string_view name, std::string_view value) {
    HpackStaticName n = hpack_static_find_name(name);
    for (std::size_t i = n.first; i < n.first + n.count; ++i) {
        if (kHpackStaticEntries[i].value == value) return i;
    }
    return 0;
}

}  // namespace slipstream::http::h2
