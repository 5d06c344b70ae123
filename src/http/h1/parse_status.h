// ParseStatus: the three outcomes of parsing a request head (complete, need more bytes, error).
#pragma once

#include <cstddef>
#include <cstdint>

#include "http/h1/parse_error.h"

namespace slipstream::http::h1 {

enum class ParseResult : std::uint8_t {
    kComplete,    // a whole head was parsed; `consumed` is its length
    kIncomplete,  // the bytes so far are a valid prefix: call again with more
    kError,       // answer `error.http_status` and close the connection
};

/// What parse_request returns. Small and trivially copyable: no allocation on any path.
struct [[nodiscard]] ParseStatus {
    ParseResult result = ParseResult::kIncomplete;
    std::size_t consumed = 0;  // kComplete: bytes of the head, leading empty lines included
    ParseError error;          // kError only

    static constexpr ParseStatus complete(std::size_t n) { return {ParseResult::kComplete, n, {}}; }
    static constexpr ParseStatus incomplete() { return {}; }
    static constexpr ParseStatus failure(const ParseError& e) { return {ParseResult::kError, 0, e}; }

    bool is_complete() const { return result == ParseResult::kComplete; }
    bool is_incomplete() const { return result == ParseResult::kIncomplete; }
    bool is_error() const { return result == ParseResult::kError; }
};

}  // namespace slipstream::http::h1
