// reason_phrase: the standard reason phrase of an HTTP status code (RFC 9110 §15 and registered extensions).
#pragma once

#include <string_view>

namespace slipstream::http::h1 {

/// "Not Found" for 404, ...; empty for a code without a registered phrase (the status line then ends "599 ").
std::string_view reason_phrase(int status);

}  // namespace slipstream::http::h1
