// Pagination cursors: opaque text for a list offset.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace slipstream::mcp::detail {

std::string encode_cursor(std::size_t offset);
/// The offset of a cursor encode_cursor() wrote, or nullopt for anything else.
std::optional<std::size_t> decode_cursor(std::string_view cursor);

}  // namespace slipstream::mcp::detail
