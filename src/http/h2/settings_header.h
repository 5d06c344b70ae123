// decode_settings_header: the HTTP2-Settings field of an h2c upgrade request (RFC 7540 §3.2.1) to SETTINGS bytes.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::http::h2 {

/// Decodes the field's base64url value (RFC 4648 §5; trailing '=' padding tolerated, whitespace around it
/// trimmed) into a SETTINGS frame payload. Error kInvalidArgument: a character outside the alphabet, a
/// length no base64 text has, a payload that is not a whole number of 6-byte settings, or a value RFC 9113
/// §6.5.2 forbids (ENABLE_PUSH > 1, INITIAL_WINDOW_SIZE > 2^31-1, MAX_FRAME_SIZE outside 2^14..2^24-1).
base::Result<std::string> decode_settings_header(std::string_view value);

}  // namespace slipstream::http::h2
