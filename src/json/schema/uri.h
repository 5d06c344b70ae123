// RFC 3986 reference resolution for $id / $ref, and fragment splitting.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace slipstream::json::schema::detail {

/// Resolves `ref` against the absolute (or empty) `base` (RFC 3986 section 5.2, with dot-segment
/// removal). An empty base leaves `ref` as it is.
std::string resolve_uri(std::string_view base, std::string_view ref);

/// Splits "a#b" into {"a", "b"}; no '#' gives {uri, ""}.
std::pair<std::string_view, std::string_view> split_fragment(std::string_view uri);

/// Decodes %XX escapes (used for JSON pointer fragments). Invalid escapes are kept verbatim.
std::string percent_decode(std::string_view s);

}  // namespace slipstream::json::schema::detail
