// StrOps: Python's str methods on UTF-8 text (case mapping is ASCII-only).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slipstream::agent::infer::jinja {

/// str.strip/lstrip/rstrip: `chars` null strips whitespace, otherwise any of its characters.
std::string py_strip(std::string_view s, const std::string* chars, bool left, bool right);
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);
/// str.capitalize: the first character upper case, the rest lower case.
std::string py_capitalize(std::string_view s);
/// Jinja's title filter: each word's first letter upper case, the rest lower case (words split at whitespace,
/// '-', and opening brackets).
std::string py_title(std::string_view s);
/// str.replace(old, new, count); count < 0 replaces all.
std::string py_replace(std::string_view s, std::string_view old, std::string_view with, int64_t count);
/// str.split(sep, maxsplit): sep null splits at runs of whitespace and drops empty parts.
std::vector<std::string> py_split(std::string_view s, const std::string* sep, int64_t maxsplit);

}  // namespace slipstream::agent::infer::jinja
