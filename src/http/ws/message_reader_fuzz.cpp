// Fuzz target ws_frames: client bytes through MessageReader (with and without deflate), split in two.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/ws/message_reader.h"

namespace {

void run(std::string_view data, std::size_t cut, bool deflate) {
    slipstream::http::ws::MessageReaderOptions o;
    o.deflate = deflate;
    o.max_message_bytes = 1 << 16;
    o.max_frame_bytes = 1 << 16;
    slipstream::http::ws::MessageReader r(o);
    std::string_view parts[2] = {data.substr(0, cut), data.substr(cut)};
    for (std::string_view piece : parts) {
        while (true) {
            auto e = r.read(piece);
            if (e.consumed > piece.size()) __builtin_trap();
            piece.remove_prefix(e.consumed);
            if (e.kind == slipstream::http::ws::MessageReader::Kind::kNeedMore) break;
            if (e.kind == slipstream::http::ws::MessageReader::Kind::kError) return;
            if (e.data.size() > (1u << 16)) __builtin_trap();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    // The first byte picks the split point and whether deflate is on.
    std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    std::size_t cut = bytes.empty() ? 0 : data[0] % (bytes.size() + 1);
    run(bytes, cut, (data[0] & 1) != 0);
    return 0;
}
