// HPACK decoder: representations (§6), integers (§5.1), strings (§5.2), indices (§2.3.3) and size updates (§6.3).
#include "http/h2/hpack/hpack_decoder.h"

#include "http/h2/hpack/hpack_huffman.h"
#include "http/h2/hpack/hpack_static_table.h"

namespace slipstream::http::h2 {
namespace {

// A cursor over the block; every read checks the end first.
struct Reader {
    const unsigned char* p;
    const unsigned char* end;

    // §5.1: an integer with an N-bit prefix, the prefix's first byte at p. False: truncated, or past 2^32 - 1
    // (which also bounds its continuation bytes to 5).
    bool integer(unsigned prefix_bits, std::uint32_t& out) {
        std::uint32_t max_prefix = (1u << prefix_bits) - 1;
        std::uint32_t v = *p++ & max_prefix;
        if (v < max_prefix) {
            out = v;
            return true;
        }
        std::uint64_t value = v;
        for (unsigned shift = 0;; shift += 7) {
            if (p == end || shift > 28) return false;
            unsigned char b = *p++;
            value += static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (value > 0xffffffffu) return false;
            if ((b & 0x80) == 0) break;
        }
        out = static_cast<std::uint32_t>(value);
        return true;
    }

    // §5.2: a string literal; Huffman-coded ones are decoded into `scratch`.
    bool string(std::string& scratch, std::string_view& out) {
        if (p == end) return false;
        bool huffman = (*p & 0x80) != 0;
        std::uint32_t len;
        if (!integer(7, len) || len > static_cast<std::size_t>(end - p)) return false;
        std::string_view raw(reinterpret_cast<const char*>(p), len);
        p += len;
        if (!huffman) {
            out = raw;
            return true;
        }
        scratch.clear();
        if (!huffman_decode(raw, scratch)) return false;
        out = scratch;
        return true;
    }
};

}  // namespace

HpackDecoder::HpackDecoder(std::uint32_t max_table_size) : max_table_size_(max_table_size), table_(max_table_size) {}

HpackStatus HpackDecoder::decode(std::string_view block, HpackFieldSink& sink) {
    Reader r{reinterpret_cast<const unsigned char*>(block.data()),
             reinterpret_cast<const unsigned char*>(block.data()) + block.size()};
    bool fields_started = false;
    // An index (1-based over the static then the dynamic table) to its entry; false: 0 or past the tables.
    auto entry = [this](std::uint32_t index, std::string_view& name, std::string_view& value) {
        if (index == 0) return false;
        if (index <= kHpackStaticTableSize) {
            const HpackStaticEntry& e = hpack_static_entry(index);
            name = e.name;
            value = e.value;
            return true;
        }
        return table_.get(index - kHpackStaticTableSize - 1, name, value);
    };
    while (r.p != r.end) {
        unsigned char b = *r.p;
        std::string_view name;
        std::string_view value;
        std::uint32_t index;
        if (b & 0x80) {  // §6.1 indexed field (a one-byte index first: the common case)
            if (b != 0xff) {
                ++r.p;
                index = b & 0x7fu;
            } else if (!r.integer(7, index)) {
                return HpackStatus::kCompressionError;
            }
            if (!entry(index, name, value)) return HpackStatus::kCompressionError;
        } else if ((b & 0xe0) == 0x20) {  // §6.3 dynamic table size update: only before the first field
            std::uint32_t size;
            if (fields_started || !r.integer(5, size) || size > max_table_size_) {
                return HpackStatus::kCompressionError;
            }
            table_.set_capacity(size);
            continue;
        } else {  // §6.2 literals: with incremental indexing (01), without (0000) or never indexed (0001)
            bool incremental = (b & 0x40) != 0;
            if (!r.integer(incremental ? 6 : 4, index)) return HpackStatus::kCompressionError;
            if (index == 0) {
                if (!r.string(name_scratch_, name)) return HpackStatus::kCompressionError;
            } else if (!entry(index, name, value)) {
                return HpackStatus::kCompressionError;
            }
            if (!r.string(value_scratch_, value)) return HpackStatus::kCompressionError;
            // The new entry may evict the one its name views: hand the sink the table's copy.
            if (incremental && table_.insert(name, value)) {
                name = table_.name(0);
                value = table_.value(0);
            }
        }
        fields_started = true;
        if (!sink.on_field(name, value)) return HpackStatus::kStopped;
    }
    return HpackStatus::kOk;
}

}  // namespace slipstream::http::h2
