// trim_ows: a field value or list item without the optional whitespace (spaces and tabs) around it.
#pragma once

#include <string_view>

namespace slipstream::base {

/// `s` without leading and trailing spaces and tabs (RFC 9110 OWS). Pure; no allocation.
constexpr std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

}  // namespace slipstream::base
