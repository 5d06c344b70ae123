// Request-target forms (RFC 9112 §3.2): splits the target into path, query and host (module-private).
#pragma once

#include <string_view>

#include "http/h1/parse_error.h"
#include "http/h1/request_head.h"

namespace slipstream::http::h1::detail {

/// The method's enum value for the common methods, kOther for the rest.
Method classify_method(std::string_view method);

/// Sets out->target_form, path, query and (absolute- and authority-form) host from out->target, whose bytes
/// are already known to be target characters, plus '[' and ']' when `has_brackets`. (The parser splits an
/// origin-form target itself while scanning it; this handles every form.)
/// Returns kBadTarget for a form the method does not allow or a malformed target, else nullptr.
const ParseError* split_target(bool has_brackets, RequestHead* out);

}  // namespace slipstream::http::h1::detail
