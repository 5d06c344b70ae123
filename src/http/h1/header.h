// Header: one field line as views into the request bytes, plus lookup and validation of field names and values.
#pragma once

#include <span>
#include <string_view>

#include "base/status.h"

namespace slipstream::http::h1 {

/// A header field. Both views point into the parsed bytes (no copies); `value` has its OWS trimmed.
struct Header {
    std::string_view name;
    std::string_view value;
};

/// ASCII case-insensitive comparison, for field names and tokens.
bool iequals(std::string_view a, std::string_view b);

/// Value of the first field named `name` (case-insensitive); empty view when absent.
std::string_view find_header(std::span<const Header> headers, std::string_view name);

/// True when `name` is a non-empty token (RFC 9110 §5.1).
bool is_valid_field_name(std::string_view name);

/// True when `value` is a valid field-value (RFC 9110 §5.5): visible ASCII, obs-text, SP and HTAB inside,
/// no CR, LF, NUL or other control bytes, no leading or trailing whitespace.
bool is_valid_field_value(std::string_view value);

/// Checks a header a handler wants to send, so it cannot inject CR/LF (response splitting).
/// Returns invalid_argument naming which part is wrong; the header must then not be written.
base::Status validate_field(std::string_view name, std::string_view value);

/// True for the fields the serializer writes itself and handlers must not set:
/// Content-Length, Transfer-Encoding, Connection (message framing and connection management).
bool is_framing_field(std::string_view name);

}  // namespace slipstream::http::h1
