// Fuzz target: the HPACK decoder over a sequence of blocks. Byte 0 picks the table limit; then each block is a
// length byte and that many bytes. Decoding never over-reads (ASan), the table stays within its accounting and
// limit, and every decoded field survives our encoder and a fresh decoder, and a Huffman round trip.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_encoder.h"
#include "http/h2/hpack/hpack_huffman.h"

namespace {

using namespace slipstream::http::h2;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

class Collect final : public HpackFieldSink {
  public:
    bool on_field(std::string_view name, std::string_view value) override {
        fields.emplace_back(name, value);
        return fields.size() < 64;
    }
    std::vector<std::pair<std::string, std::string>> fields;
};

void check_table(const HpackDynamicTable& t, std::uint32_t limit) {
    std::size_t sum = 0;
    for (std::size_t i = 0; i < t.count(); ++i)
        sum += t.name(i).size() + t.value(i).size() + 32;
    require(sum == t.size());
    require(t.size() <= t.capacity());
    require(t.capacity() <= limit);
}

void check_reencoded(const Collect& decoded) {
    HpackEncoder encoder;
    std::string out;
    encoder.begin_block(out);
    for (const auto& [name, value] : decoded.fields) {
        encoder.field(out, name, value, HpackIndexing::kIncremental);
        std::string code;
        huffman_encode(value, code);
        require(code.size() == huffman_encoded_size(value));
        std::string back;
        require(huffman_decode(code, back) && back == value);
    }
    HpackDecoder fresh;
    Collect again;
    require(fresh.decode(out, again) == HpackStatus::kOk);
    require(again.fields == decoded.fields);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    constexpr std::uint32_t kLimits[] = {4096, 0, 256, 65536};
    std::uint32_t limit = kLimits[data[0] & 3];
    HpackDecoder decoder(limit);
    std::size_t pos = 1;
    while (pos < size) {
        std::size_t len = data[pos++];
        if (len > size - pos) len = size - pos;
        std::string_view block(reinterpret_cast<const char*>(data) + pos, len);
        pos += len;
        Collect sink;
        HpackStatus status = decoder.decode(block, sink);
        check_table(decoder.table(), limit);
        if (status != HpackStatus::kOk) break;  // the connection would end here
        check_reencoded(sink);
    }
    return 0;
}
