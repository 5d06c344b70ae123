// Raw parameter text as Starlette reads it: the query string split into pairs, cookies, header lookup.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "http/h1/header.h"

namespace slipstream::server::detail {

struct RawPair {
    std::string_view key;
    std::string_view value;
};

/// Splits a raw query string the way Starlette does (urllib's parse_qsl with keep_blank_values): on '&',
/// empty pieces skipped, each on its first '=' (no '=' gives an empty value), '+' -> space, valid %XX
/// decoded, a malformed '%' kept literally, invalid UTF-8 replaced by U+FFFD. Never fails.
/// Decoded text lives in `arena`; text that needed no decoding views `query`.
std::span<const RawPair> split_query(std::string_view query, base::Arena& arena);

/// Parses one Cookie header value as Starlette's cookie_parser does: split on ';', each on its first '='
/// (no '=' gives an empty name), both trimmed, a double-quoted value unquoted (octal and backslash
/// escapes). Appends to `out` in order; with repeated names the last one is what Starlette keeps.
void split_cookies(std::string_view header, base::Arena& arena, std::vector<RawPair>& out);

/// Python's bytes.decode("utf-8", "replace"): `text` itself when valid, else a copy in `arena` with each
/// maximal invalid subsequence replaced by U+FFFD.
std::string_view to_valid_utf8(std::string_view text, base::Arena& arena);

/// Header bytes as the text Starlette gives handlers (each byte a latin-1 character), as UTF-8: `bytes`
/// itself when ASCII, else a copy in `arena`.
std::string_view header_text(std::string_view bytes, base::Arena& arena);

}  // namespace slipstream::server::detail
