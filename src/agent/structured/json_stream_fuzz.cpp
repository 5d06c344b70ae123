// libFuzzer target: JsonStream fed the input whole and in pieces must agree with json::parse, and never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agent/structured/json_stream.h"
#include "base/arena.h"
#include "json/parse.h"

using slipstream::agent::structured::JsonStream;
using slipstream::agent::structured::StreamState;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    slipstream::base::Arena arena;
    const bool accepted = slipstream::json::parse(text, arena).is_ok();
    // The piece size comes from the input's length, so one corpus entry exercises one split.
    const std::size_t piece = 1 + size % 5;
    JsonStream whole, pieces;
    whole.feed(text);
    for (std::size_t at = 0; at < size; at += piece)
        pieces.feed(text.substr(at, piece));
    const bool whole_ok = whole.finish() == StreamState::kComplete;
    const bool pieces_ok = pieces.finish() == StreamState::kComplete;
    if (whole_ok != accepted || pieces_ok != accepted) std::abort();
    return 0;
}
