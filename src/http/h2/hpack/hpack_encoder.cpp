// HPACK encoder: representation choice (§6), integers (§5.1), strings (§5.2) and size updates (§6.3).
#include "http/h2/hpack/hpack_encoder.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "http/h2/hpack/hpack_bytes.h"
#include "http/h2/hpack/hpack_huffman.h"
#include "http/h2/hpack/hpack_static_table.h"

namespace slipstream::http::h2 {
namespace {

// RFC 9113 §6.5.2: SETTINGS_HEADER_TABLE_SIZE starts at 4096.
constexpr std::uint32_t kDefaultTableSize = 4096;

// §5.1 for a value that does not fit the prefix.
void put_long_integer(std::string& out, unsigned char first, std::uint32_t max_prefix, std::uint64_t v) {
    char buf[11];
    std::size_t n = 0;
    buf[n++] = static_cast<char>(first | max_prefix);
    v -= max_prefix;
    while (v >= 0x80) {
        buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out.append(buf, n);
}

// §5.1: `first` holds the representation's pattern bits above the N-bit prefix.
inline void put_integer(std::string& out, unsigned char first, unsigned prefix_bits, std::uint64_t v) {
    std::uint32_t max_prefix = (1u << prefix_bits) - 1;
    if (v < max_prefix) {
        out.push_back(static_cast<char>(first | v));
    } else {
        put_long_integer(out, first, max_prefix, v);
    }
}

// §5.2: Huffman-coded when strictly shorter.
void put_string(std::string& out, std::string_view s) {
    if (s.size() < 127) {
        // Both lengths fit the 7-bit prefix: code it in place in one pass, or copy it raw when that is no longer.
        std::size_t old = out.size();
        out.resize(old + 1 + s.size() + 8);
        char* p = out.data() + old;
        std::size_t huffman = detail::huffman_encode_if_shorter(s, p + 1);
        if (huffman < s.size()) {
            p[0] = static_cast<char>(0x80 | huffman);
        } else {
            p[0] = static_cast<char>(s.size());
            if (!s.empty()) std::memcpy(p + 1, s.data(), s.size());
        }
        out.resize(old + 1 + huffman);
        return;
    }
    std::size_t huffman = huffman_encoded_size(s);
    if (huffman < s.size()) {
        put_integer(out, 0x80, 7, huffman);
        detail::huffman_encode_sized(s, huffman, out);
    } else {
        put_integer(out, 0x00, 7, s.size());
        out.append(s);
    }
}

// §5.2 without Huffman coding.
void put_raw_string(std::string& out, std::string_view s) {
    put_integer(out, 0x00, 7, s.size());
    out.append(s);
}

// §6.1 indexed field for 200 204 206 304 400 404 500 (static entries 8-14), else 0.
std::size_t status_index(int code) {
    switch (code) {
        case 200:
            return 8;
        case 204:
            return 9;
        case 206:
            return 10;
        case 304:
            return 11;
        case 400:
            return 12;
        case 404:
            return 13;
        case 500:
            return 14;
        default:
            return 0;
    }
}

}  // namespace

HpackEncoder::HpackEncoder(std::uint32_t max_table_size)
    : cap_(max_table_size), table_(std::min(max_table_size, kDefaultTableSize), true) {
    // A cap below the protocol's initial size is announced in the first block.
    if (cap_ < kDefaultTableSize) {
        update_pending_ = true;
        smallest_update_ = cap_;
    }
}

void HpackEncoder::set_peer_table_size(std::uint32_t size) {
    std::uint32_t next = std::min(size, cap_);
    if (next == table_.capacity() && !update_pending_) return;
    smallest_update_ = update_pending_ ? std::min(smallest_update_, next) : next;
    update_pending_ = true;
    table_.set_capacity(next);
}

void HpackEncoder::begin_block(std::string& out) {
    if (!update_pending_) return;
    update_pending_ = false;
    if (smallest_update_ < table_.capacity()) put_integer(out, 0x20, 5, smallest_update_);
    put_integer(out, 0x20, 5, table_.capacity());
}

void HpackEncoder::status(std::string& out, int code) {
    if (std::size_t index = status_index(code); index != 0) {
        out.push_back(static_cast<char>(0x80 | index));
        return;
    }
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, code);
    (void)ec;             // 16 bytes hold any int
    out.push_back(0x08);  // §6.2.2 literal without indexing, name = static entry 8 (":status")
    put_string(out, std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

void HpackEncoder::field(std::string& out, std::string_view name, std::string_view value, HpackIndexing how,
                         HpackCoding coding) {
    // The dynamic table first: a repeated response field is found there without the static name lookup.
    std::uint32_t name_hash = 0;
    bool dynamic = table_.count() > 0;
    if (dynamic) {
        name_hash = HpackDynamicTable::hash_name(name);
        if (how != HpackIndexing::kNever) {
            if (std::size_t d = table_.find(name, value, name_hash); d != HpackDynamicTable::kNone) {
                put_integer(out, 0x80, 7, kHpackStaticTableSize + 1 + d);
                return;
            }
        }
    }
    HpackStaticName stat = hpack_static_find_name(name);
    if (how != HpackIndexing::kNever) {
        for (std::size_t i = stat.first; i < stat.first + stat.count; ++i) {
            if (detail::hpack_equal(hpack_static_entry(i).value, value)) {
                put_integer(out, 0x80, 7, i);
                return;
            }
        }
    }
    std::size_t name_index = stat.first;
    if (name_index == 0 && dynamic) {
        if (std::size_t d = table_.find_name(name, name_hash); d != HpackDynamicTable::kNone) {
            name_index = kHpackStaticTableSize + 1 + d;
        }
    }
    // A field larger than the table would empty it: it goes without indexing instead.
    if (how == HpackIndexing::kIncremental &&
        name.size() + value.size() + HpackDynamicTable::kEntryOverhead > table_.capacity()) {
        how = HpackIndexing::kWithout;
    }
    switch (how) {
        case HpackIndexing::kIncremental:
            put_integer(out, 0x40, 6, name_index);
            break;
        case HpackIndexing::kWithout:
            put_integer(out, 0x00, 4, name_index);
            break;
        case HpackIndexing::kNever:
            put_integer(out, 0x10, 4, name_index);
            break;
    }
    if (name_index == 0) put_string(out, name);
    if (coding == HpackCoding::kRaw) {
        put_raw_string(out, value);
    } else {
        put_string(out, value);
    }
    if (how == HpackIndexing::kIncremental) (void)table_.insert(name, value);
}

}  // namespace slipstream::http::h2
