// Standard base64 (RFC 4648 §4, with padding): the Mcp-Name / Mcp-Param-* sentinel encoding and sealed request
// states.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slipstream::mcp::detail {

std::string encode_base64(std::string_view bytes);
/// nullopt for a length not a multiple of 4, a character outside the alphabet, or misplaced padding.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace slipstream::mcp::detail
